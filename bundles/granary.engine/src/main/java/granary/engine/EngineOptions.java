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
 * @param whyLedger       keep every waiting unit's why-not-scheduled ledger, its reasons counted by
 *                        code (docs/scheduling.md, "Why is my job not scheduled?"); off, a unit keeps
 *                        only its latest reason. On by default; the switch is there to measure its cost
 */
public record EngineOptions(List<String> policies, List<String> fallback, boolean checkInvariants, boolean whyLedger) {

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

    /** With the why-not-scheduled ledger on. */
    public EngineOptions(List<String> policies, List<String> fallback, boolean checkInvariants) {
        this(policies, fallback, checkInvariants, true);
    }

    public EngineOptions withPolicies(List<String> p) {
        return new EngineOptions(p, fallback, checkInvariants, whyLedger);
    }

    public EngineOptions withInvariantChecks(boolean on) {
        return new EngineOptions(policies, fallback, on, whyLedger);
    }

    public EngineOptions withWhyLedger(boolean on) {
        return new EngineOptions(policies, fallback, checkInvariants, on);
    }
}
