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
     * Nothing selected, no fallback: the engine names no policy. A runtime says which policies it
     * runs with (features/standalone: {@code granary-runtime.properties}); until one is in effect at
     * the unit order, scheduling waits (docs/architecture.md, "Policies as bundles").
     */
    public static final EngineOptions DEFAULTS = new EngineOptions(List.of(), List.of(), false);

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
