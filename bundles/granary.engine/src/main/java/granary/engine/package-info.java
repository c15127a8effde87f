/**
 * The scheduling engine: {@link granary.engine.Engine} (a deterministic, single-threaded state
 * machine over input events, usable on a plain class path) and {@link granary.engine.EventLoop}
 * (its live-runtime wrapper). Everything else in the package is internal.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package granary.engine;
