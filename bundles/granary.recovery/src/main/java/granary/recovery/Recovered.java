package granary.recovery;

import granary.api.model.JobSpec;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.protocol.Cap;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * What a master still owes after its window closed (docs/recovery.md, "Peers that return late"):
 * online holdings kept for agents that did not report, and mock jobs waiting for their job master.
 * Not thread-safe: the master calls it under its own lock.
 */
public final class Recovered {

    /** Node → online slots kept for its agent's return. */
    private final Map<String, List<Adoption>> awaiting = new TreeMap<>();
    /** Unit → slots kept on nodes whose agent has not returned: the engine must not grant them elsewhere. */
    private final Map<UnitId, Integer> reserved = new HashMap<>();
    /** Mock job id → its spec, until the job master returns. */
    private final Map<String, JobSpec> mocks = new HashMap<>();

    public Recovered(Rebuild rebuild) {
        for (Adoption a : rebuild.awaiting()) {
            awaiting.computeIfAbsent(a.node(), n -> new ArrayList<>()).add(a);
            reserved.merge(a.unit(), a.slots(), Integer::sum);
        }
        for (JobSpec j : rebuild.jobs()) {
            if (rebuild.mocks().contains(j.id())) {
                mocks.put(j.id(), j);
            }
        }
    }

    /** Nothing owed (a master that had nothing to recover). */
    public static Recovered none() {
        return new Recovered(Rebuild.empty());
    }

    /**
     * A job master that returned after the window holds online slots on a node whose agent has not
     * returned either (case 17, job master first): they are kept for the agent like the window's.
     */
    public void keep(Adoption online) {
        awaiting.computeIfAbsent(online.node(), n -> new ArrayList<>()).add(online);
        reserved.merge(online.unit(), online.slots(), Integer::sum);
    }

    /** Slots of {@code unit} kept for agents that have not returned: subtract them from what the engine is asked for. */
    public int reserved(UnitId unit) {
        return reserved.getOrDefault(unit, 0);
    }

    public boolean isMock(String job) {
        return mocks.containsKey(job);
    }

    /** Every online holding kept for an agent that has not returned. */
    public List<Adoption> awaiting() {
        List<Adoption> out = new ArrayList<>();
        awaiting.values().forEach(out::addAll);
        return out;
    }

    public Set<String> awaitedNodes() {
        return awaiting.keySet();
    }

    public Set<String> mockJobs() {
        return mocks.keySet();
    }

    /**
     * What a late agent's caps mean.
     *
     * @param adopt     take these on (online caps of units the master knows), each raising its unit's desired count by its slots
     * @param raise     per unit, kept slots the agent no longer holds: ask for them again (raise the desired count)
     * @param withdraw  caps the agent must drop: offline ones (their work was run again elsewhere) and caps of unknown units
     * @param forgotten online slots kept for this node that the agent no longer holds: the job master is told they are gone
     */
    public record AgentReturn(List<Adoption> adopt, Map<UnitId, Integer> raise, List<Dropped> withdraw, List<Dropped> forgotten) {
    }

    /**
     * An agent that did not report within the window registers. Its caps are trusted: online ones
     * are kept, offline ones were given up when the window closed.
     *
     * @param kind the kind of a unit the master knows, or null
     */
    public AgentReturn agentReturned(String node, List<Cap.Grant> caps, Function<UnitId, UnitKind> kind) {
        List<Adoption> kept = awaiting.remove(node);
        Map<UnitId, Integer> keptSlots = new HashMap<>();
        if (kept != null) {
            kept.forEach(a -> keptSlots.merge(a.unit(), a.slots(), Integer::sum));
            keptSlots.forEach((u, n) -> {
                int left = reserved.getOrDefault(u, 0) - n;
                if (left > 0) {
                    reserved.put(u, left);
                } else {
                    reserved.remove(u);
                }
            });
        }
        List<Adoption> adopt = new ArrayList<>();
        Map<UnitId, Integer> raise = new HashMap<>();
        List<Dropped> withdraw = new ArrayList<>();
        Set<UnitId> capped = new HashSet<>();
        for (Cap.Grant g : caps) {
            if (g.slots() <= 0) {
                continue;
            }
            UnitKind k = kind.apply(g.unit());
            if (k == null) {
                withdraw.add(new Dropped(g.unit(), node, g.slots(), g.jobMaster(), g.online(),
                        "the master runs no unit " + g.unit() + " any more"));
            } else if (k == UnitKind.ONLINE) {
                capped.add(g.unit());
                adopt.add(new Adoption(g.unit(), node, g.slots(), true));
                // Kept slots were left out of the unit's desired count: the adoption raises it by
                // what it takes on (GrantAdopted's raiseDesired), in one step with the grant.
                int extra = g.slots() - keptSlots.getOrDefault(g.unit(), 0);
                if (extra < 0) {
                    keptSlots.put(g.unit(), -extra);
                } else {
                    keptSlots.remove(g.unit());
                }
            } else {
                withdraw.add(new Dropped(g.unit(), node, g.slots(), g.jobMaster(), false, "agent " + node
                        + " returned after the recovery window: its offline slots were run again elsewhere"));
            }
        }
        List<Dropped> forgotten = new ArrayList<>();
        keptSlots.forEach((u, n) -> {
            if (n > 0) {
                forgotten.add(new Dropped(u, node, n, "", true, "agent " + node + " returned without a cap for "
                        + n + " slots of " + u + " that its job master held"));
                // They were left out of the desired count: ask for them again.
                raise.merge(u, n, Integer::sum);
            }
        });
        return new AgentReturn(adopt, raise, withdraw, forgotten);
    }

    /**
     * How a mock job becomes its job master's real request (case 11): units in both keep their
     * grants and take the real desired count, real units the mock lacks are added, mock units the
     * job master does not list are cancelled.
     */
    public record Conversion(String job, Map<UnitId, Integer> desires, List<UnitSpec> added, List<UnitId> cancelled) {
    }

    /** The job master of mock {@code real.id()} returned with its real spec; null if the job was no mock. */
    public Conversion convert(JobSpec real) {
        JobSpec mock = mocks.remove(real.id());
        if (mock == null) {
            return null;
        }
        Map<UnitId, Integer> desires = new TreeMap<>();
        List<UnitSpec> added = new ArrayList<>();
        Set<String> listed = new HashSet<>();
        for (UnitSpec u : real.units()) {
            listed.add(u.name());
            UnitId id = new UnitId(real.id(), u.name());
            if (mock.units().stream().anyMatch(m -> m.name().equals(u.name()))) {
                desires.put(id, Math.max(0, u.desired() - reserved(id)));
            } else {
                added.add(u);
            }
        }
        List<UnitId> cancelled = new ArrayList<>();
        for (UnitSpec m : mock.units()) {
            if (!listed.contains(m.name())) {
                cancelled.add(new UnitId(real.id(), m.name()));
            }
        }
        return new Conversion(real.id(), desires, added, cancelled);
    }

    /** The job master of a mock job was declared lost or dropped the job: it is no mock any more. */
    public void forget(String job) {
        mocks.remove(job);
    }
}
