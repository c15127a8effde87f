package granary.conformance;

import granary.api.model.JobSpec;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.protocol.Ack;
import granary.protocol.Hint;
import granary.protocol.Message;
import granary.protocol.Program;
import granary.protocol.Request;
import granary.protocol.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A job master as the protocol sees it: a full request (its jobs, and the slots its hints gave it)
 * on connect and whenever the master does not know it; hints from its inbox; a task that ended with
 * a failure (a stopped worker) is asked for again by raising its unit's desired count. Its jobs
 * and their progress survive a restart (a real job master keeps them in its own store); the
 * holdings only if it checkpoints its hints.
 */
final class SimJobMaster extends SimPeer {

    private record Pair(UnitId unit, String node) implements Comparable<Pair> {
        @Override
        public int compareTo(Pair o) {
            int c = unit.compareTo(o.unit);
            return c != 0 ? c : node.compareTo(o.node);
        }
    }

    private final List<JobSpec> jobs;
    /** Offline unit → tasks not finished yet (as the hints' exits told). */
    final Map<UnitId, Integer> remaining = new TreeMap<>();
    private final Map<Pair, Integer> holdings = new TreeMap<>();
    /** When each pair was first held (newest are given back first when a service holds too many). */
    private final Map<Pair, Long> since = new TreeMap<>();
    /** Releases sent and not answered yet: a hint built before the master applied them still counts them. */
    private final Map<Pair, Integer> releasing = new TreeMap<>();
    private Map<Pair, Integer> checkpoint = new TreeMap<>();
    final boolean checkpointsHints;
    private boolean synced;
    private boolean syncing;
    /** Sends a restart spec: the master starts it again when it is declared lost (spec case 3). */
    final boolean restartable;
    /** The node it runs on, once the master started it there (its restart spec asks for another one). */
    String node;

    SimJobMaster(World world, String id, List<JobSpec> jobs, boolean checkpointsHints, boolean restartable, long incarnation) {
        super(world, Role.JOB_MASTER, id, incarnation);
        this.jobs = List.copyOf(jobs);
        this.checkpointsHints = checkpointsHints;
        this.restartable = restartable;
        for (JobSpec j : jobs) {
            for (UnitSpec u : j.units()) {
                if (u.kind() == UnitKind.OFFLINE) {
                    remaining.put(new UnitId(j.id(), u.name()), u.desired());
                }
            }
        }
        fullRequest();
    }

    /** The jobs as they stand: offline units want the tasks not finished yet. */
    List<JobSpec> jobs() {
        List<JobSpec> out = new ArrayList<>();
        for (JobSpec j : jobs) {
            List<UnitSpec> us = new ArrayList<>();
            for (UnitSpec u : j.units()) {
                Integer left = remaining.get(new UnitId(j.id(), u.name()));
                us.add(left == null ? u : u.withDesired(left));
            }
            out.add(new JobSpec(j.id(), j.group(), j.user(), j.productionLevel(), j.gang(), us));
        }
        return out;
    }

    private void fullRequest() {
        synced = false;
        syncing = true;
        List<Request.Holding> held = new ArrayList<>();
        holdings.forEach((p, n) -> held.add(new Request.Holding(p.unit, p.node, n)));
        send(new Request(true, jobs(), List.of(), List.of(), List.of(), held, restartable ? restartSpec() : null));
    }

    /** How the master may start it again: a small online slot, preferably off the node it runs on. */
    private Request.Restart restartSpec() {
        return new Request.Restart(new Program(List.of("sim-job-master", id()), java.util.Map.of(), ""), RESTART_SLOT, node);
    }

    /** The slot a restarted job master runs in. */
    static final granary.api.model.Resources RESTART_SLOT = granary.api.model.Resources.of(50, 256);

    /** Failover: memory lost but the jobs and their progress; the holdings only from a checkpoint of hints. */
    void failover(long newIncarnation) {
        restart(newIncarnation);
        holdings.clear();
        releasing.clear();
        if (checkpointsHints) {
            holdings.putAll(checkpoint);
        }
        fullRequest();
    }

    @Override
    boolean ready() {
        return synced;
    }

    @Override
    void onResync(String why) {
        if (why.contains(" is fenced: ")) {
            // Declared lost and started again elsewhere: this incarnation exits (docs/recovery.md).
            world.fencedJobMaster(this);
            return;
        }
        releasing.clear(); // the master restarted: what was in flight is gone
        fullRequest();
    }

    @Override
    void onApplied(Message m) {
        if (m instanceof Request r) {
            answered(r);
            // applied: the pair holds that many fewer now, whatever an older hint still says
            r.releases().forEach(x -> holdings.computeIfPresent(new Pair(x.unit(), x.node()), (k, v) -> v > x.slots() ? v - x.slots() : null));
            if (r.full()) {
                syncing = false;
                synced = true;
            }
        }
    }

    private void answered(Request r) {
        r.releases().forEach(x -> releasing.computeIfPresent(new Pair(x.unit(), x.node()), (k, v) -> v > x.slots() ? v - x.slots() : null));
    }

    @Override
    void onRefused(Message m, Ack ack) {
        if (m instanceof Request r) {
            answered(r);
        }
        if (!syncing) {
            fullRequest(); // the master lost track of a job (it cancelled it after a timeout): send everything
        } else {
            // e.g. no node registered yet that fits its units: a job master tries again a second later
            world.note(id() + ": full request refused, again in 1 s: " + ack.problems());
            world.later(world.now() + 1_000, this::fullRequest);
        }
    }

    @Override
    void onInbox(Message m) {
        if (!(m instanceof Hint h)) {
            return;
        }
        for (Hint.Placement p : h.placements()) {
            Pair k = new Pair(p.unit(), p.node());
            if (p.slots() == 0) {
                holdings.remove(k);
                since.remove(k);
            } else {
                holdings.put(k, p.slots());
                since.putIfAbsent(k, world.now());
            }
        }
        Map<UnitId, Boolean> rerun = new TreeMap<>();
        for (Hint.Exit x : h.exits()) {
            Integer left = remaining.get(x.unit());
            if (left == null) {
                continue;
            }
            if (x.exitCode() == 0) {
                remaining.put(x.unit(), Math.max(0, left - 1));
            } else {
                rerun.put(x.unit(), true);
            }
        }
        if (checkpointsHints) {
            checkpoint = new TreeMap<>(holdings);
        }
        List<Request.Desire> desires = new ArrayList<>();
        rerun.keySet().forEach(u -> desires.add(new Request.Desire(u, remaining.get(u))));
        List<Request.Release> releases = excessOnline();
        if (!desires.isEmpty() || !releases.isEmpty()) {
            send(new Request(false, List.of(), desires, List.of(), releases));
        }
    }

    /**
     * Online slots held beyond what a service wants: after an agent that was away returns with caps
     * the master did not know of, the master keeps them (it never revokes online work) and leaves the
     * choice to the job master, which gives back the extra ones.
     */
    private List<Request.Release> excessOnline() {
        List<Request.Release> out = new ArrayList<>();
        for (JobSpec j : jobs) {
            for (UnitSpec u : j.units()) {
                if (u.kind() != UnitKind.ONLINE) {
                    continue;
                }
                UnitId id = new UnitId(j.id(), u.name());
                List<Pair> pairs = new ArrayList<>();
                int held = 0;
                for (Map.Entry<Pair, Integer> e : holdings.entrySet()) {
                    if (e.getKey().unit.equals(id)) {
                        pairs.add(e.getKey());
                        held += e.getValue() - releasing.getOrDefault(e.getKey(), 0);
                    }
                }
                int extra = held - u.desired();
                // newest first: the service keeps its long-running workers
                pairs.sort((a, b) -> Long.compare(since.getOrDefault(b, 0L), since.getOrDefault(a, 0L)));
                for (Pair p : pairs) {
                    int n = Math.min(extra, holdings.get(p) - releasing.getOrDefault(p, 0));
                    if (n > 0) {
                        out.add(new Request.Release(id, p.node, n));
                        world.released(id, p.node, n);
                        releasing.merge(p, n, Integer::sum);
                        extra -= n;
                    }
                }
            }
        }
        return out;
    }

    /** Slots this job master believes it holds, per unit and node. */
    Map<UnitId, Map<String, Integer>> holdings() {
        Map<UnitId, Map<String, Integer>> out = new TreeMap<>();
        holdings.forEach((p, n) -> out.computeIfAbsent(p.unit, u -> new TreeMap<>()).put(p.node, n));
        return out;
    }

    List<JobSpec> specs() {
        return jobs;
    }

    boolean done() {
        return remaining.values().stream().allMatch(n -> n == 0);
    }
}
