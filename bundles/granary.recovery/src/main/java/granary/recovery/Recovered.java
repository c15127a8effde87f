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
    /** Jobs out of the engine while all they want runs on nodes not back yet → their spec as listed. */
    private final Map<String, JobSpec> deferred = new HashMap<>();

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
        rebuild.deferred().forEach(j -> deferred.put(j.id(), j));
    }

    /**
     * A job all of whose wanted slots are kept for agents that have not returned: it stays out of the
     * engine (which takes no job that wants nothing) until one of them returns.
     */
    public void defer(JobSpec job) {
        deferred.put(job.id(), job);
    }

    public boolean isDeferred(String job) {
        return deferred.containsKey(job);
    }

    /** The spec of deferred job {@code job}, or null. */
    public JobSpec deferredJob(String job) {
        return deferred.get(job);
    }

    /** True if slots of {@code job} are kept for agents that have not returned. */
    public boolean keepsAny(String job) {
        return reserved.keySet().stream().anyMatch(u -> u.job().equals(job));
    }

    public void undefer(String job) {
        deferred.remove(job);
    }

    /** The jobs kept out of the engine for now. */
    public List<JobSpec> deferredJobs() {
        return List.copyOf(deferred.values());
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
     * @param mocks     jobs to submit together with grants to adopt in the same step ({@code mockGrants}): mock jobs
     *                  for online caps of job masters that have not come back (case 17, agent first; owners in
     *                  {@code mockOwners}), and deferred jobs whose slots this agent brings back
     */
    public record AgentReturn(List<Adoption> adopt, Map<UnitId, Integer> raise, List<Dropped> withdraw, List<Dropped> forgotten,
                              List<JobSpec> mocks, List<Adoption> mockGrants, Map<String, String> mockOwners) {
    }

    /**
     * An agent that did not report within the window registers. Its caps are trusted: online ones
     * are kept, offline ones were given up when the window closed.
     *
     * @param kind the kind of a unit the master knows, or null
     */
    public AgentReturn agentReturned(String node, List<Cap.Grant> caps, Function<UnitId, UnitKind> kind) {
        return agentReturned(node, caps, kind, jm -> true, job -> true);
    }

    /**
     * The same, knowing which job masters are present and which jobs the engine has: online caps of
     * a unit the master does not know, of a job master that has not come back, of a job the engine
     * does not have, become a mock job like the window's (case 17, agent first) instead of being
     * withdrawn.
     */
    public AgentReturn agentReturned(String node, List<Cap.Grant> caps, Function<UnitId, UnitKind> kind,
                                     java.util.function.Predicate<String> jobMasterPresent,
                                     java.util.function.Predicate<String> jobKnown) {
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
        Map<String, Map<String, UnitSpec>> mockUnits = new TreeMap<>();
        Map<UnitId, Integer> deferredCaps = new HashMap<>();
        Map<String, String> mockOwners = new TreeMap<>();
        List<Adoption> mockGrants = new ArrayList<>();
        for (Cap.Grant g : caps) {
            if (g.slots() <= 0) {
                continue;
            }
            UnitKind k = kind.apply(g.unit());
            String job = g.unit().job();
            JobSpec waiting = deferred.get(job);
            if (k == null && waiting != null && waiting.units().stream().anyMatch(u -> u.name().equals(g.unit().unit()))) {
                // A deferred job comes back with this agent: submitted with these slots adopted.
                capped.add(g.unit());
                mockGrants.add(new Adoption(g.unit(), node, g.slots(), true));
                keptSlots.remove(g.unit());
                deferredCaps.merge(g.unit(), g.slots(), Integer::sum);
            } else if (k == null && g.online() && !jobMasterPresent.test(g.jobMaster()) && !jobKnown.test(job)
                    && g.jobMaster().equals(mockOwners.getOrDefault(job, g.jobMaster()))) {
                mockOwners.put(job, g.jobMaster());
                mockUnits.computeIfAbsent(job, j -> new TreeMap<>()).put(g.unit().unit(), UnitSpec.builder(g.unit().unit())
                        .slot(g.size()).desired(g.slots()).kind(UnitKind.ONLINE).build());
                mockGrants.add(new Adoption(g.unit(), node, g.slots(), true));
            } else if (k == null) {
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
                if (deferred.containsKey(u.job())) {
                    deferredCaps.putIfAbsent(u, 0); // its job is submitted below, asking for them again
                } else {
                    // They were left out of the desired count: ask for them again.
                    raise.merge(u, n, Integer::sum);
                }
            }
        });
        List<JobSpec> jobs = new ArrayList<>();
        Set<String> back = new java.util.TreeSet<>();
        deferredCaps.keySet().forEach(u -> back.add(u.job()));
        for (String job : back) {
            JobSpec spec = deferred.remove(job);
            List<UnitSpec> us = new ArrayList<>();
            for (UnitSpec u : spec.units()) {
                UnitId id = new UnitId(job, u.name());
                // what is still kept on other nodes stays out; what this agent holds is in, and adopted
                us.add(u.withDesired(Math.max(deferredCaps.getOrDefault(id, 0), u.desired() - reserved(id))));
            }
            if (us.stream().allMatch(u -> u.desired() == 0)) {
                deferred.put(job, spec); // still everything on nodes not back yet
            } else {
                jobs.add(new JobSpec(spec.id(), spec.group(), spec.user(), spec.productionLevel(), spec.gang(), us));
            }
        }
        mockUnits.forEach((job, units) -> {
            JobSpec spec = JobSpec.of(job, JobSpec.DEFAULT_GROUP, units.values().toArray(new UnitSpec[0]));
            jobs.add(spec);
            mocks.put(job, spec);
        });
        return new AgentReturn(adopt, raise, withdraw, forgotten, jobs, mockGrants, mockOwners);
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

    /**
     * Its job master cancelled {@code job}: nothing of it is kept for agents that have not returned
     * (their caps of it are withdrawn when they do). Returns true if it was deferred — kept out of
     * the engine because all it wanted was on such nodes — so that the engine has nothing to cancel.
     */
    public boolean cancelled(String job) {
        boolean wasDeferred = deferred.remove(job) != null;
        mocks.remove(job);
        awaiting.values().forEach(l -> l.removeIf(a -> a.unit().job().equals(job)));
        awaiting.values().removeIf(List::isEmpty);
        reserved.keySet().removeIf(u -> u.job().equals(job));
        return wasDeferred;
    }
}
