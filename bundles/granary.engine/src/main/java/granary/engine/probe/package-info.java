/**
 * The supported seam for benchmarks and diagnostics on a plain class path: {@link granary.engine.probe.EngineProbe}
 * reaches a running {@link granary.engine.Engine}'s state, and the public types of
 * {@link granary.engine.state} it returns (and the fit-search structures, built on their own) may be
 * used from outside the engine's packages, e.g. by the {@code benchmarks} module ({@code granary.bench}).
 *
 * <p>Not exported: no bundle can import it in a framework, and nothing here is api. It changes with
 * the engine; code that uses it is built with the engine (the benchmarks are a module of this build).
 * Classes outside the engine bundle must not be placed into the engine's packages to reach internals:
 * what they need goes here.
 */
package granary.engine.probe;
