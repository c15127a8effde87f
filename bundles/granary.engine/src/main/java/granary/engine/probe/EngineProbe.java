package granary.engine.probe;

import granary.engine.Engine;
import granary.engine.state.Workload;
import granary.engine.view.EngineContext;

/** Access to an engine's internals for benchmarks (see the package documentation). */
public final class EngineProbe {

    private EngineProbe() {
    }

    /**
     * The jobs, units and group queues of {@code engine}, and the unit order in effect
     * ({@link Workload#order()}). Live: read it on the engine's thread, between events.
     */
    public static Workload workload(Engine engine) {
        return ((EngineContext) engine.view()).workload();
    }
}
