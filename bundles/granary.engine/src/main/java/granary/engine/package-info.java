/**
 * The scheduling engine: {@link granary.engine.Engine} (a deterministic, single-threaded state
 * machine over input events, usable on a plain class path) and {@link granary.engine.EventLoop}
 * (its live-runtime wrapper), with {@link granary.engine.EngineOptions}. The only exported package of
 * the bundle; the engine's parts are in private sub-packages: {@code state}, {@code handler},
 * {@code cycle}, {@code policy}, {@code view}, and the benchmark seam {@code probe}
 * (docs/architecture.md, "The engine"). {@link granary.engine.EngineHost} runs work on a live engine's thread and tells a
 * {@link granary.engine.HandlingListener} how long each event took, and why one was refused.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package granary.engine;
