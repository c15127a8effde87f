/**
 * The cluster model shared by every Granary bundle: resource vectors, nodes, jobs, schedule units,
 * the clock, and the {@link granary.api.Scheduler} service of a live runtime.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package granary.api;
