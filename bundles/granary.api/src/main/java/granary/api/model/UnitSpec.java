package granary.api.model;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A schedule unit as its job master asks for it (docs/model.md, "Jobs and schedule units"): {@code desired} identical slots of size
 * {@code slot}.
 *
 * @param name         unit name, unique within its job
 * @param slot         size of one slot; not negative, not zero
 * @param desired      slots wanted; 0 or more
 * @param priority     higher wins
 * @param locality     preferences in any order; the engine walks them MACHINE, ROOM, CLUSTER. Empty
 *                     means anywhere in the cluster. A unit may only use nodes its preferences name
 *                     (a CLUSTER preference names them all).
 * @param maxPerNode   at most this many slots of the unit on one node; 0 = no limit
 * @param blacklist    nodes the unit must not use (its own blacklist)
 * @param nodeSelector labels a node must carry ({@code key=value}, all of them) to be used
 * @param allOrNothing grant all desired slots in one step or none (docs/scheduling.md, "Gangs")
 * @param kind         OFFLINE (revocable) or ONLINE (stable)
 * @param expectedSeconds how long one slot's work is expected to run, as the job master declares
 *                     it; 0 = not declared. Advice for policies that plan ahead (the quota policy's
 *                     boundary lookahead, docs/multi-tenancy.md); at most one year.
 */
public record UnitSpec(String name, Resources slot, int desired, int priority, List<Locality> locality,
                       int maxPerNode, Set<String> blacklist, Map<String, String> nodeSelector,
                       boolean allOrNothing, UnitKind kind, long expectedSeconds) {

    /** The longest declared run time: one year. */
    public static final long MAX_EXPECTED_SECONDS = 31_536_000L;

    /** A unit without a declared run time. */
    public UnitSpec(String name, Resources slot, int desired, int priority, List<Locality> locality,
                    int maxPerNode, Set<String> blacklist, Map<String, String> nodeSelector,
                    boolean allOrNothing, UnitKind kind) {
        this(name, slot, desired, priority, locality, maxPerNode, blacklist, nodeSelector, allOrNothing, kind, 0);
    }

    public UnitSpec {
        locality = locality == null ? List.of() : List.copyOf(locality);
        blacklist = blacklist == null ? Set.of() : Set.copyOf(new TreeSet<>(blacklist));
        nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(new TreeMap<>(nodeSelector));
        kind = kind == null ? UnitKind.OFFLINE : kind;
        Checks c = new Checks("unit " + name).name("name", name).nonNegative("slot", slot).bounded("slot", slot);
        c.check(slot == null || !slot.isZero(), "slot", "must ask for some resource, got " + slot);
        c.atLeast("desired", desired, 0).atLeast("maxPerNode", maxPerNode, 0);
        c.check(expectedSeconds >= 0 && expectedSeconds <= MAX_EXPECTED_SECONDS, "expectedSeconds",
                "must be 0 (not declared) to " + MAX_EXPECTED_SECONDS + " (one year), got " + expectedSeconds);
        blacklist.forEach(n -> c.check(Names.isValid(n), "blacklist", "'" + Text.escape(n) + "' is not a node name"));
        Set<String> machines = new HashSet<>();
        for (int i = 0; i < locality.size(); i++) {
            Locality l = locality.get(i);
            c.check(l != null, "locality[" + i + "]", "is null");
            if (l != null && l.level() == Locality.Level.MACHINE && !machines.add(l.target())) {
                c.add(Problem.of("unit " + name, "locality[" + i + "].target",
                        "machine '" + l.target() + "' is named twice"));
            }
        }
        c.done();
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** The total resources of all desired slots. */
    public Resources total() {
        return slot.times(desired);
    }

    /** This unit with another desired count. */
    public UnitSpec withDesired(int newDesired) {
        return new UnitSpec(name, slot, newDesired, priority, locality, maxPerNode, blacklist, nodeSelector,
                allOrNothing, kind, expectedSeconds);
    }

    /** This unit kept off {@code nodes} instead of its blacklist now. */
    public UnitSpec withBlacklist(Set<String> nodes) {
        return new UnitSpec(name, slot, desired, priority, locality, maxPerNode, nodes, nodeSelector,
                allOrNothing, kind, expectedSeconds);
    }

    /** This unit with a declared run time per slot (0 = not declared). */
    public UnitSpec withExpectedSeconds(long seconds) {
        return new UnitSpec(name, slot, desired, priority, locality, maxPerNode, blacklist, nodeSelector,
                allOrNothing, kind, seconds);
    }

    /** Builds a {@link UnitSpec}; defaults: priority 0, anywhere, no per-node limit, OFFLINE. */
    public static final class Builder {
        private final String name;
        private Resources slot;
        private int desired;
        private int priority;
        private final List<Locality> locality = new ArrayList<>();
        private int maxPerNode;
        private final Set<String> blacklist = new TreeSet<>();
        private final Map<String, String> selector = new TreeMap<>();
        private boolean allOrNothing;
        private UnitKind kind = UnitKind.OFFLINE;
        private long expectedSeconds;

        private Builder(String name) {
            this.name = name;
        }

        public Builder slot(Resources s) {
            this.slot = s;
            return this;
        }

        public Builder slot(long cpu, long memMb) {
            return slot(Resources.of(cpu, memMb));
        }

        public Builder desired(int n) {
            this.desired = n;
            return this;
        }

        public Builder priority(int p) {
            this.priority = p;
            return this;
        }

        public Builder prefer(Locality l) {
            locality.add(l);
            return this;
        }

        public Builder maxPerNode(int n) {
            this.maxPerNode = n;
            return this;
        }

        public Builder blacklist(String node) {
            blacklist.add(node);
            return this;
        }

        public Builder select(String label, String value) {
            selector.put(label, value);
            return this;
        }

        public Builder allOrNothing(boolean aon) {
            this.allOrNothing = aon;
            return this;
        }

        public Builder kind(UnitKind k) {
            this.kind = k;
            return this;
        }

        public Builder expectedSeconds(long seconds) {
            this.expectedSeconds = seconds;
            return this;
        }

        public UnitSpec build() {
            return new UnitSpec(name, slot, desired, priority, locality, maxPerNode, blacklist, selector,
                    allOrNothing, kind, expectedSeconds);
        }
    }
}
