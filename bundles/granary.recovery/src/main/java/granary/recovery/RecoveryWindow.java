package granary.recovery;

import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.protocol.Cap;
import granary.protocol.Request;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A master's recovery window (docs/recovery.md): it starts empty, collects agents' caps and job
 * masters' requests and holdings, and once the window is over rebuilds its grants from them.
 *
 * <p>The rules, spec'd in docs/recovery.md, "Rebuilding":
 * <ul>
 * <li>An agent's caps are trusted over a job master's holdings (job masters run user code).
 * <li>Holdings count only on nodes whose agent did not report: online ones are kept for the agent's
 *     return (nothing else is granted in their place), offline ones are dropped and run again.
 * <li>Caps of a job master that has not reported become a mock request: a job with one
 *     cluster-level unit per capped unit, wanting exactly what it holds, owned by that job master
 *     until it returns.
 * <li>Adoptions never overfill a node: online first, then offline, each within the capacity the
 *     agent reports; offline ones also within what their unit still wants.
 * </ul>
 * Deterministic: reports are taken in name order, whatever order they arrived in.
 */
public final class RecoveryWindow {

    private final RecoveryOptions options;
    private final long openedAt;
    private final Map<String, AgentReport> agents = new TreeMap<>();
    private final Map<String, JobMasterReport> jobMasters = new TreeMap<>();
    /** Nodes the job masters' holdings name, and how many of those nodes' agents have not reported. */
    private final Names namedNodes = new Names(agents);
    /** Job masters the agents' caps name, and how many of them have not reported. */
    private final Names namedJobMasters = new Names(jobMasters);
    private long lastNewPeer;
    private boolean closed;

    public RecoveryWindow(RecoveryOptions options, long openedAt) {
        this.options = options;
        this.openedAt = openedAt;
        this.lastNewPeer = openedAt;
    }

    /** An agent reported (again): its last report counts. */
    public void agent(AgentReport report, long now) {
        ensureOpen();
        AgentReport before = agents.put(report.node().name(), report);
        if (before == null) {
            lastNewPeer = now;
            namedNodes.reported(report.node().name());
        } else {
            namedJobMasters.count(jobMastersOf(before), -1);
        }
        namedJobMasters.count(jobMastersOf(report), 1);
    }

    /** A job master reported (again): its last full request counts. */
    public void jobMaster(JobMasterReport report, long now) {
        ensureOpen();
        JobMasterReport before = jobMasters.put(report.id(), report);
        if (before == null) {
            lastNewPeer = now;
            namedJobMasters.reported(report.id());
        } else {
            namedNodes.count(nodesOf(before), -1);
        }
        namedNodes.count(nodesOf(report), 1);
    }

    private static Set<String> jobMastersOf(AgentReport a) {
        Set<String> out = new HashSet<>();
        a.caps().forEach(g -> out.add(g.jobMaster()));
        return out;
    }

    private static Set<String> nodesOf(JobMasterReport j) {
        Set<String> out = new HashSet<>();
        j.holdings().forEach(h -> out.add(h.node()));
        return out;
    }

    /**
     * Peers that reports name, each with how many current reports name it, and how many of them have
     * not reported themselves: kept as reports come so that {@link #due} costs O(1), not a pass over
     * every cap and holding (it is asked after every message the master handles, 10,000s a second
     * while a large cluster reports).
     */
    private static final class Names {
        private final Map<String, Integer> namedBy = new HashMap<>();
        private final Map<String, ?> reporters;
        private int missing;

        Names(Map<String, ?> reporters) {
            this.reporters = reporters;
        }

        /** One report more ({@code delta} 1) or fewer (-1) names each of {@code names}. */
        void count(Set<String> names, int delta) {
            for (String n : names) {
                int old = namedBy.getOrDefault(n, 0);
                int now = old + delta;
                if (now == 0) {
                    namedBy.remove(n);
                } else {
                    namedBy.put(n, now);
                }
                if (!reporters.containsKey(n)) {
                    missing += (old == 0 ? 1 : 0) - (now == 0 ? 1 : 0);
                }
            }
        }

        /** {@code name} reported for the first time (the caller has put it among the reporters). */
        void reported(String name) {
            if (namedBy.containsKey(name)) {
                missing--;
            }
        }

        Set<String> missing() {
            Set<String> out = new TreeSet<>();
            namedBy.keySet().forEach(n -> {
                if (!reporters.containsKey(n)) {
                    out.add(n);
                }
            });
            return out;
        }
    }

    public boolean reported(String agentOrJobMaster) {
        return agents.containsKey(agentOrJobMaster) || jobMasters.containsKey(agentOrJobMaster);
    }

    /** When the window opened (ms). */
    public long openedAt() {
        return openedAt;
    }

    /**
     * Whether the window is over at {@code now}: its full length has passed, or every peer that some
     * report names has reported and no new one came for the settle time.
     */
    public boolean due(long now) {
        if (now - openedAt >= options.window().toMillis()) {
            return true;
        }
        boolean heard = !agents.isEmpty() || !jobMasters.isEmpty();
        return heard && namedNodes.missing == 0 && namedJobMasters.missing == 0
                && now - lastNewPeer >= options.settle().toMillis();
    }

    /** Nodes that job masters hold slots on and whose agent has not reported. */
    public Set<String> missingAgents() {
        return namedNodes.missing();
    }

    /** Job masters that agents hold caps of and that have not reported. */
    public Set<String> missingJobMasters() {
        return namedJobMasters.missing();
    }

    public int agentCount() {
        return agents.size();
    }

    public int jobMasterCount() {
        return jobMasters.size();
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the recovery window is closed: late peers go to Recovered");
        }
    }

    /**
     * A cap that may be adopted: {@code real} is its unit as its job master's request has it, with
     * what is counted for it, or null for a mock unit's cap ({@code mock}).
     */
    private record Candidate(UnitId unit, String node, int slots, boolean online, String jobMaster, Resources size, Tally real,
                             MockUnit mock) {
    }

    /** A unit of a job master's request and, as the rebuild goes, its slots kept for absent agents and adopted. */
    private static final class Tally {
        final UnitSpec spec;
        int reserved;
        int held;

        Tally(UnitSpec spec) {
            this.spec = spec;
        }
    }

    /**
     * Online first, then by node, then by unit as its text {@code job/unit} reads, compared without
     * making the text. The candidates come agent by agent in node order (the agents' map is sorted),
     * so only each node's few caps are sorted, and the online ones are taken out ahead: at 200,000
     * caps, a sort of all of them by text was a fifth of the rebuild. Candidates out of node order
     * (none today) are sorted whole.
     */
    private static List<Candidate> inAdoptionOrder(List<Candidate> candidates) {
        List<Candidate> online = new ArrayList<>();
        List<Candidate> offline = new ArrayList<>(candidates.size());
        List<Candidate> group = new ArrayList<>();
        String previous = null;
        for (int i = 0; i < candidates.size(); ) {
            String node = candidates.get(i).node();
            if (previous != null && previous.compareTo(node) >= 0) {
                List<Candidate> whole = new ArrayList<>(candidates);
                whole.sort(ADOPTION_ORDER);
                return whole;
            }
            group.clear();
            int j = i;
            while (j < candidates.size() && candidates.get(j).node().equals(node)) {
                group.add(candidates.get(j++));
            }
            group.sort((x, y) -> asText(x.unit(), y.unit()));
            group.forEach(c -> (c.online() ? online : offline).add(c));
            previous = node;
            i = j;
        }
        online.addAll(offline);
        return online;
    }

    static final Comparator<Candidate> ADOPTION_ORDER = (x, y) -> {
        if (x.online() != y.online()) {
            return x.online() ? -1 : 1;
        }
        int c = x.node().compareTo(y.node());
        return c != 0 ? c : asText(x.unit(), y.unit());
    };

    /** The slots of {@code unit} among the candidates in {@code range} (a node's), 0 for none. */
    private static int capped(List<Candidate> candidates, int[] range, UnitId unit) {
        int slots = 0;
        for (int i = range[0]; i < range[1]; i++) {
            Candidate c = candidates.get(i);
            UnitId u = c.unit();
            if (u == unit || u.unit().equals(unit.unit()) && u.job().equals(unit.job())) {
                slots += c.slots();
            }
        }
        return slots;
    }

    /** {@code a.toString().compareTo(b.toString())}, without the strings. */
    static int asText(UnitId a, UnitId b) {
        if (a.job().equals(b.job())) {
            return a.unit().compareTo(b.unit());
        }
        int la = a.job().length() + 1 + a.unit().length();
        int lb = b.job().length() + 1 + b.unit().length();
        for (int i = 0, n = Math.min(la, lb); i < n; i++) {
            char x = charOf(a, i);
            char y = charOf(b, i);
            if (x != y) {
                return x - y;
            }
        }
        return la - lb;
    }

    private static char charOf(UnitId u, int i) {
        int j = u.job().length();
        return i < j ? u.job().charAt(i) : i == j ? '/' : u.unit().charAt(i - j - 1);
    }

    private static final class MockUnit {
        final Resources size;
        final boolean online;
        int held;

        MockUnit(Resources size, boolean online) {
            this.size = size;
            this.online = online;
        }
    }

    /** Closes the window: what to rebuild. Called once. */
    public Rebuild close() {
        ensureOpen();
        closed = true;
        List<NodeSpec> nodes = new ArrayList<>();
        Map<String, Resources> free = new HashMap<>();
        agents.values().forEach(a -> {
            nodes.add(a.node());
            free.put(a.node().name(), a.node().capacity());
        });
        Map<String, JobSpec> jobs = new TreeMap<>();
        Map<String, String> owners = new TreeMap<>();
        // hashed copies for the lookups per cap and holding (200,000 of them in a large cluster)
        Set<String> reportedJobMasters = new HashSet<>(jobMasters.keySet());
        Map<String, String> ownerOf = new HashMap<>();
        Map<UnitId, Tally> units = new HashMap<>();
        Map<String, List<Request.Holding>> reported = new TreeMap<>();
        for (JobMasterReport j : jobMasters.values()) {
            reported.put(j.id(), j.holdings());
            for (JobSpec job : j.jobs()) {
                if (job.units().stream().allMatch(u -> u.desired() == 0)) {
                    continue; // ended: nothing to run (its caps are dropped as a unit it no longer runs)
                }
                if (owners.putIfAbsent(job.id(), j.id()) == null) {
                    ownerOf.put(job.id(), j.id());
                    jobs.put(job.id(), job);
                    job.units().forEach(u -> units.put(new UnitId(job.id(), u.name()), new Tally(u)));
                }
            }
        }
        List<Dropped> dropped = new ArrayList<>();
        List<Candidate> candidates = new ArrayList<>();
        Map<String, Map<String, MockUnit>> mockUnits = new TreeMap<>();
        Map<String, String> mockOwners = new HashMap<>();
        // Each node's candidates, a range of the list (agent by agent), to set holdings against.
        Map<String, int[]> candidatesOf = new HashMap<>();
        for (AgentReport a : agents.values()) {
            String node = a.node().name();
            int first = candidates.size();
            for (Cap.Grant g : a.caps()) {
                if (g.slots() <= 0) {
                    continue;
                }
                String job = g.unit().job();
                String owner = ownerOf.get(job);
                if (reportedJobMasters.contains(g.jobMaster())) {
                    Tally u = units.get(g.unit());
                    if (u == null || !g.jobMaster().equals(owner)) {
                        dropped.add(new Dropped(g.unit(), node, g.slots(), g.jobMaster(), g.online(),
                                "job master " + g.jobMaster() + " does not run unit " + g.unit() + " any more"));
                        continue;
                    }
                    candidates.add(new Candidate(g.unit(), node, g.slots(), u.spec.kind() == UnitKind.ONLINE, g.jobMaster(),
                            u.spec.slot(), u, null));
                } else if (owner != null) {
                    dropped.add(new Dropped(g.unit(), node, g.slots(), g.jobMaster(), g.online(),
                            "job " + job + " is run by job master " + owner + ", not " + g.jobMaster()));
                    continue;
                } else if (!g.online() && !options.keepOfflineOfAbsent()) {
                    // §12 case 11: the offline grants of a job master that did not report are dropped;
                    // it gets the revocation when it returns (docs/recovery.md)
                    dropped.add(new Dropped(g.unit(), node, g.slots(), g.jobMaster(), false, "job master " + g.jobMaster()
                            + " did not report within the recovery window: its offline slots are dropped"));
                    continue;
                } else {
                    String mockOwner = mockOwners.putIfAbsent(job, g.jobMaster());
                    if (mockOwner != null && !mockOwner.equals(g.jobMaster())) {
                        dropped.add(new Dropped(g.unit(), node, g.slots(), g.jobMaster(), g.online(),
                                "caps name two job masters for job " + job + ": " + mockOwner + " and " + g.jobMaster()));
                        continue;
                    }
                    MockUnit mock = mockUnits.computeIfAbsent(job, x -> new TreeMap<>())
                            .computeIfAbsent(g.unit().unit(), x -> new MockUnit(g.size(), g.online()));
                    candidates.add(new Candidate(g.unit(), node, g.slots(), g.online(), g.jobMaster(), g.size(), null, mock));
                }
            }
            candidatesOf.put(node, new int[] {first, candidates.size()});
        }
        // Holdings: used only where the agent did not report; elsewhere the caps win.
        List<Adoption> awaiting = new ArrayList<>();
        for (JobMasterReport j : jobMasters.values()) {
            for (Request.Holding h : j.holdings()) {
                Tally u = units.get(h.unit());
                if (h.slots() <= 0 || u == null || !j.id().equals(ownerOf.get(h.unit().job()))) {
                    continue;
                }
                boolean online = u.spec.kind() == UnitKind.ONLINE;
                int[] range = candidatesOf.get(h.node()); // the node's agent reported (with caps or none)
                if (range != null) {
                    int caps = capped(candidates, range, h.unit());
                    if (h.slots() > caps) {
                        dropped.add(new Dropped(h.unit(), h.node(), h.slots() - caps, j.id(), online,
                                "agent " + h.node() + " holds a cap for " + caps + " slots, not " + h.slots() + ": the agent's caps win"));
                    }
                } else if (online) {
                    awaiting.add(new Adoption(h.unit(), h.node(), h.slots(), true));
                    u.reserved += h.slots();
                } else {
                    dropped.add(new Dropped(h.unit(), h.node(), h.slots(), j.id(), false, "agent " + h.node()
                            + " did not report within the recovery window: its offline slots run again elsewhere"));
                }
            }
        }
        // Adopt: online first; within each node's capacity; offline within what the unit still wants.
        candidates = inAdoptionOrder(candidates);
        List<Adoption> adoptions = new ArrayList<>();
        for (Candidate c : candidates) {
            Resources room = free.get(c.node());
            int n = c.slots();
            while (n > 0 && !c.size().times(n).fitsIn(room)) {
                n--;
            }
            int fits = n;
            boolean wantsLess = false;
            Tally real = c.real();
            if (real != null && !c.online()) {
                int wants = real.spec.desired() - real.reserved - real.held;
                if (wants < n) {
                    n = Math.max(0, wants);
                    wantsLess = true;
                }
            }
            if (n < c.slots()) {
                String why = wantsLess ? "unit " + c.unit() + " wants only " + real.spec.desired() + " slots"
                        : "node " + c.node() + " reports room for only " + fits + " of them";
                dropped.add(new Dropped(c.unit(), c.node(), c.slots() - n, c.jobMaster(), c.online(), why));
            }
            if (n > 0) {
                adoptions.add(new Adoption(c.unit(), c.node(), n, c.online()));
                free.put(c.node(), room.minus(c.size().times(n)));
                if (real != null) {
                    real.held += n;
                } else {
                    c.mock().held += n;
                }
            }
        }
        // The jobs as the engine takes them: awaited slots are not asked for again, online slots
        // held beyond the desired count are kept (the master never revokes online work).
        List<JobSpec> out = new ArrayList<>();
        List<JobSpec> deferred = new ArrayList<>();
        for (JobSpec job : jobs.values()) {
            List<UnitSpec> us = new ArrayList<>();
            for (UnitSpec u : job.units()) {
                Tally t = units.get(new UnitId(job.id(), u.name()));
                us.add(u.withDesired(Math.max(u.desired(), t.held + t.reserved) - t.reserved));
            }
            if (us.stream().allMatch(u -> u.desired() == 0)) {
                deferred.add(job); // everything it wants runs on nodes not back yet
            } else {
                out.add(new JobSpec(job.id(), job.group(), job.user(), job.productionLevel(), job.gang(), us));
            }
        }
        Map<String, String> allOwners = new LinkedHashMap<>(owners);
        mockUnits.forEach((job, byName) -> {
            List<UnitSpec> us = new ArrayList<>();
            byName.forEach((name, m) -> {
                if (m.held > 0) {
                    us.add(UnitSpec.builder(name).slot(m.size).desired(m.held)
                            .kind(m.online ? UnitKind.ONLINE : UnitKind.OFFLINE).build());
                }
            });
            if (!us.isEmpty()) {
                out.add(JobSpec.of(job, JobSpec.DEFAULT_GROUP, us.toArray(new UnitSpec[0])));
                allOwners.put(job, mockOwners.get(job));
            }
        });
        Set<String> mocks = new TreeSet<>(mockUnits.keySet());
        mocks.retainAll(allOwners.keySet());
        return new Rebuild(nodes, out, allOwners, mocks, adoptions, awaiting, dropped, reported, deferred);
    }
}
