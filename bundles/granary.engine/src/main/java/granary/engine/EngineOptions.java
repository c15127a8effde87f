package granary.engine;

import java.util.List;

/**
 * Engine settings.
 *
 * @param policies        the initial selection, in order (later entries win an exclusive point);
 *                        names not installed are kept and take effect when installed
 * @param fallback        the order in which installed policies stand in on an exclusive point whose
 *                        selected policy is not installed
 * @param checkInvariants strict mode for tests: check every invariant after every event (costs
 *                        O(state) per event) and fail on a fault inside a cycle instead of noting it
 */
public record EngineOptions(List<String> policies, List<String> fallback, boolean checkInvariants) {

    /**
     * FIFO unit order, the queue tree, quota (whose group order wins over the queues'), gang
     * placement and reservation when installed; fall back FIFO, FAIR, SubmitWindow.
     */
    public static final EngineOptions DEFAULTS = new EngineOptions(
            List.of("fifo", "queues", "quota", "gang", "reservation"), List.of("fifo", "fair", "submitwindow"), false);

    public EngineOptions {
        policies = List.copyOf(policies);
        fallback = List.copyOf(fallback);
    }

    public EngineOptions withPolicies(List<String> p) {
        return new EngineOptions(p, fallback, checkInvariants);
    }

    public EngineOptions withInvariantChecks(boolean on) {
        return new EngineOptions(policies, fallback, on);
    }
}
