package granary.api.spi;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import granary.api.model.Allocation;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;

import org.osgi.annotation.versioning.ProviderType;

/**
 * A schedule unit as the engine sees it now. Invariant: {@code granted() + remaining() == desired()}.
 * Live: read it on the engine thread only.
 */
@ProviderType
public interface UnitView {

    UnitId id();

    JobView job();

    /** The unit as last requested (its desired count is {@link #desired()}). */
    UnitSpec spec();

    /** Full name of the group queue it waits in. */
    String group();

    int priority();

    Resources slot();

    int desired();

    int granted();

    /** Slots still wanted: desired − granted. */
    int remaining();

    /** All-or-nothing: the unit is marked so, or its job is a gang. */
    boolean allOrNothing();

    UnitKind kind();

    /** Engine time when the unit was requested. */
    long submitTime();

    /** Engine time since when it has waited without interruption; -1 while nothing waits. */
    long waitingSince();

    /** A number unique to the unit that grows with submission order: the engine's last tie-break. */
    long sequence();

    /** Slots per node. */
    Map<String, Integer> allocations();

    /** Slots per node with their age, oldest first. */
    List<Allocation> grants();

    /**
     * The unit's grant on {@code node} with its age, or null if it holds nothing there. Costs a lookup,
     * not a walk over {@link #grants()}, in the engine: preemption asks a node's units for theirs when
     * it looks for room node by node (docs/multi-tenancy.md, "Choices and their defaults").
     */
    default Allocation grantOn(NodeView node) {
        for (Allocation a : grants()) {
            if (a.node().equals(node.name())) {
                return a;
            }
        }
        return null;
    }

    /**
     * The oldest of {@link #grants()}, in the same order, just enough of them to hold at least
     * {@code slots} slots (all of them when they hold fewer). Costs what it returns, not what the unit
     * holds: preemption asks a unit spread over thousands of nodes for a few of its oldest grants.
     */
    default List<Allocation> oldestGrants(long slots) {
        List<Allocation> all = grants();
        long sum = 0;
        for (int i = 0; i < all.size(); i++) {
            sum += all.get(i).slots();
            if (sum >= slots) {
                return all.subList(0, i + 1);
            }
        }
        return all;
    }

    /**
     * The grants whose newest slots were granted at or before {@code startedBy}, newest first (by
     * {@link Allocation#latest()}), just enough of them to hold at least {@code slots} slots (all of
     * them when they hold fewer). Preemption asks for these to take the work that has run the least
     * but at least its minimum run time (docs/multi-tenancy.md, "Choices and their defaults").
     */
    default List<Allocation> newestGrants(long slots, long startedBy) {
        List<Allocation> eligible = new ArrayList<>();
        for (Allocation a : grants()) {
            if (a.latest() <= startedBy) {
                eligible.add(a);
            }
        }
        eligible.sort(Comparator.comparingLong(Allocation::latest).reversed()
                .thenComparing(Comparator.comparingLong(Allocation::seq).reversed()));
        long sum = 0;
        for (int i = 0; i < eligible.size(); i++) {
            sum += eligible.get(i).slots();
            if (sum >= slots) {
                return eligible.subList(0, i + 1);
            }
        }
        return eligible;
    }

    /** Why the unit's last scheduling attempt left slots waiting, or null. */
    Reason waitReason();

    /**
     * The unit's why-not-scheduled ledger (docs/scheduling.md, "Why is my job not scheduled?"): per
     * reason code, how often the engine found it since the unit began to wait, with the latest
     * reason of that code; the most frequent first, then the most recent. Empty while nothing waits.
     *
     * <p>The default answers the single {@link #waitReason()}, counted once at an unknown time, for
     * views that keep no ledger; the engine keeps one.
     */
    default List<ReasonTally> reasons() {
        Reason r = waitReason();
        return r == null || remaining() <= 0 ? List.of() : List.of(new ReasonTally(r.code(), 1, r, -1));
    }

    /** False once the unit is cancelled or its job ended. */
    boolean live();
}
