/**
 * The HTTP edge's shared parts, for the wire's servlet and the operators' API alike: bodies read
 * as they arrive without holding a thread, within a size and a total time (docs/security.md,
 * "Limits").
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package granary.master.http;
