package granary.sim.run;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import granary.api.model.InvalidRequestException;
import granary.api.spi.ExtensionPoint;
import granary.api.spi.PolicyDeclaration;

/**
 * Makes the fresh policy instances of one set and decides the engine's selection. Two points need a
 * policy for a replay to mean anything: the unit order and, for a workload with all-or-nothing jobs,
 * gang placement. If the set names none, an installed policy that implements the point is added,
 * noted: the first of the simulator's configured fallback ({@link SimDefaults#fallback()}), else the
 * first by name; with none the set is refused.
 */
public final class PolicySetup {

    /**
     * The instances of one set, ready to install, and what was added.
     *
     * @param declarations policy name → its declaration (its reports are read from it)
     */
    public record Prepared(String label, List<PolicySource.Created> policies, List<String> selection, List<String> notes,
                           Map<String, PolicyDeclaration> declarations) {

        /** Gives every instance back to its source. */
        public void release() {
            for (PolicySource.Created c : policies) {
                c.release().run();
            }
        }
    }

    private PolicySetup() {
    }

    /**
     * Makes the set's policies. A policy of the set takes the command line's options for it
     * ({@code options}), then its own from the set ({@code quota:preemption=false}), which win; an
     * option of the command line for a policy the set does not have is noted as not used.
     */
    public static Prepared prepare(PolicySetSpec spec, PolicySource source, boolean allOrNothing,
                                   List<SimSettings.PolicyOption> options) {
        return prepare(spec, source, allOrNothing, options, SimDefaults.shipped());
    }

    /** As {@link #prepare(PolicySetSpec, PolicySource, boolean, List)}, with the stand-ins' order of {@code defaults}. */
    public static Prepared prepare(PolicySetSpec spec, PolicySource source, boolean allOrNothing,
                                   List<SimSettings.PolicyOption> options, SimDefaults defaults) {
        List<PolicySource.Created> made = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        try {
            Set<String> names = new HashSet<>();
            for (PolicySetSpec.Ref r : spec.policies()) {
                if (!names.add(r.name())) {
                    throw new InvalidRequestException("--policies " + spec.label(), r.name(), "is named twice in the set");
                }
                Map<String, String> merged = new LinkedHashMap<>();
                options.stream().filter(o -> o.policy().equals(r.name())).forEach(o -> merged.put(o.option(), o.value()));
                merged.putAll(r.options());
                made.add(source.create(r.name(), merged));
            }
            options.stream().filter(o -> !names.contains(o.policy())).map(SimSettings.PolicyOption::given).distinct()
                    .forEach(given -> notes.add(given + " not used: no policy of this set takes it"));
            List<PolicySource.Created> added = new ArrayList<>();
            if (!covers(made, ExtensionPoint.UNIT_ORDER)) {
                added.add(add(source, defaults, ExtensionPoint.UNIT_ORDER, spec, notes, "the set names no unit order"));
            }
            if (allOrNothing && !covers(made, ExtensionPoint.GANG_PLACEMENT)) {
                added.add(add(source, defaults, ExtensionPoint.GANG_PLACEMENT, spec, notes, "the workload has all-or-nothing jobs"));
            }
            List<PolicySource.Created> all = new ArrayList<>(added);   // added first: the set's own choices win
            all.addAll(made);
            List<String> selection = new ArrayList<>();
            all.forEach(c -> selection.add(c.policy().name()));
            Map<String, PolicyDeclaration> declarations = new LinkedHashMap<>();
            for (String n : selection) {
                PolicyDeclaration d = source.declaration(n);
                if (d != null) {
                    declarations.put(n, d);
                }
            }
            return new Prepared(spec.label(), all, selection, notes, declarations);
        } catch (RuntimeException e) {
            made.forEach(c -> c.release().run());
            throw e;
        }
    }

    private static boolean covers(List<PolicySource.Created> made, ExtensionPoint p) {
        return made.stream().anyMatch(c -> ExtensionPoint.of(c.policy()).contains(p));
    }

    private static PolicySource.Created add(PolicySource source, SimDefaults defaults, ExtensionPoint point, PolicySetSpec spec,
                                            List<String> notes, String why) {
        for (String name : defaults.standInOrder(source)) {
            PolicySource.Created c = source.create(name, Map.of());
            if (ExtensionPoint.of(c.policy()).contains(point)) {
                notes.add(point.id() + ": " + name + " added (" + why + ")");
                return c;
            }
            c.release().run();
        }
        throw new InvalidRequestException("--policies " + spec.label(), point.id(), why + ", but no installed policy "
                + "implements " + point.id() + " (installed: " + String.join(", ", source.names()) + ")"
                + (point == ExtensionPoint.GANG_PLACEMENT ? "; replay the trace without gangs (e.g. --trace-option gang=false)" : ""));
    }

    /** True if some available policy implements the point (each is made and given back to find out). */
    public static boolean available(PolicySource source, ExtensionPoint point) {
        for (String name : source.names()) {
            PolicySource.Created c = source.create(name, Map.of());
            try {
                if (ExtensionPoint.of(c.policy()).contains(point)) {
                    return true;
                }
            } finally {
                c.release().run();
            }
        }
        return false;
    }
}
