package granary.engine.handler;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.Map;

import granary.api.model.InvalidRequestException;
import granary.api.model.Text;
import granary.api.model.JobSpec;
import granary.api.model.Locality;
import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.event.GrantReleased;
import granary.api.event.JobCancelled;
import granary.api.event.JobMoved;
import granary.api.event.JobSubmitted;
import granary.api.event.JobsSubmitted;
import granary.api.event.UnitCancelled;
import granary.api.event.UnitBlacklistChanged;
import granary.api.event.UnitDesireChanged;
import granary.api.event.UnitRequested;
import granary.api.spi.CycleAction;
import granary.api.spi.EngineView;
import granary.api.spi.ReasonCode;
import granary.api.spi.SubmitFilter;
import granary.api.spi.Verdict;
import granary.engine.policy.PolicySet;
import granary.engine.state.Agenda;
import granary.engine.state.Allocator;
import granary.engine.state.Cluster;
import granary.engine.state.JobState;
import granary.engine.state.NodeState;
import granary.engine.state.UnitState;
import granary.engine.state.Workload;

/**
 * Handlers of the job events. Each validates fully — including the submit filters of the active
 * policies — before it changes anything, so a refused event leaves the engine as it was. A refusal
 * says why in one word ({@link InvalidRequestException#reason()}): {@code duplicate} for an id in use,
 * {@code not_found} for a job, unit or node the engine does not hold, {@code too_large} for a slot
 * larger than every node, a submit filter's reason code in lower case, else {@code invalid}.
 */
public final class JobEvents {

    private final Cluster cluster;
    private final Workload workload;
    private final Allocator allocator;
    private final Agenda agenda;
    private final PolicySet policies;
    private final EngineView view;
    private final Runnable reconsider;

    public JobEvents(Cluster cluster, Workload workload, Allocator allocator, Agenda agenda, PolicySet policies,
              EngineView view, Runnable reconsider) {
        this.reconsider = reconsider;
        this.cluster = cluster;
        this.workload = workload;
        this.allocator = allocator;
        this.agenda = agenda;
        this.policies = policies;
        this.view = view;
    }

    public void submitted(JobSubmitted e) {
        JobSpec spec = resolved(e.job());
        check(spec);
        add(spec);
    }

    /**
     * All or nothing: every job is checked against the state before the batch (and ids against each
     * other); one refusal refuses the batch, with every problem of every job.
     */
    public void submittedAll(JobsSubmitted e) {
        if (e.jobs() == null || e.jobs().isEmpty()) {
            throw new InvalidRequestException("submission", "jobs", "holds no job");
        }
        List<JobSpec> accepted = new ArrayList<>();
        Problems problems = new Problems();
        Set<String> ids = new HashSet<>();
        for (JobSpec job : e.jobs()) {
            try {
                JobSpec spec = resolved(job);
                if (!ids.add(spec.id())) {
                    problems.add(InvalidRequestException.DUPLICATE,
                            Problem.of("job " + spec.id(), "id", "is given more than once in this submission"));
                    continue;
                }
                check(spec);
                accepted.add(spec);
            } catch (InvalidRequestException refused) {
                problems.addAll(refused);   // the batch is refused for its first refused job's reason
            }
        }
        problems.throwIfAny();
        accepted.forEach(this::add);
    }

    /** Every check of a new job, without changing anything. */
    private void check(JobSpec spec) {
        String subject = "job " + spec.id();
        if (workload.job(spec.id()) != null) {
            throw new InvalidRequestException(InvalidRequestException.DUPLICATE,
                    Problem.of(subject, "id", "a job with id '" + spec.id() + "' is already running"));
        }
        Problems problems = new Problems();
        for (int i = 0; i < spec.units().size(); i++) {
            checkUnit(subject, "units[" + i + "]", spec.units().get(i), problems);
        }
        if (spec.units().stream().allMatch(u -> u.desired() == 0)) {
            problems.add(InvalidRequestException.INVALID, Problem.of(subject, "units", "every unit has desired 0: nothing to schedule"));
        }
        problems.throwIfAny();
        filter(spec);
    }

    private void add(JobSpec spec) {
        JobState job = workload.addJob(spec, view.now());
        for (UnitSpec u : spec.units()) {
            agenda.fresh(workload.addUnit(job, u, view.now()));
        }
    }

    public void unitRequested(UnitRequested e) {
        JobState job = requireJob(e.job());
        String subject = "job " + job.id();
        if (job.unit(e.unit().name()) != null) {
            throw new InvalidRequestException(InvalidRequestException.DUPLICATE,
                    Problem.of(subject, "unit.name", "the job already has a unit '" + e.unit().name() + "'"));
        }
        Problems problems = new Problems();
        checkUnit(subject, "unit", e.unit(), problems);
        problems.throwIfAny();
        JobSpec after = job.spec();
        List<UnitSpec> units = new ArrayList<>(after.units());
        units.add(e.unit());
        filter(new JobSpec(after.id(), after.group(), after.user(), after.productionLevel(), after.gang(), units));
        agenda.fresh(workload.addUnit(job, e.unit(), view.now()));
    }

    public void desireChanged(UnitDesireChanged e) {
        UnitState u = requireUnit(e.unit());
        String subject = "unit " + u.id();
        if (e.desired() < u.granted()) {
            throw new InvalidRequestException(Problem.of(subject, "desired", "cannot go below the " + u.granted()
                    + " slots it holds (asked " + e.desired() + "); release slots first", u.granted(), e.desired()));
        }
        if (e.desired() > u.desired() && policies.submitFilters().length > 0) {
            filter(withDesire(u, e.desired()));
        }
        boolean grows = e.desired() > u.desired();
        workload.desire(u, e.desired(), view.now());
        if (grows || u.allOrNothing()) {
            agenda.fresh(u);   // a gang that now wants less (one unit of a gang job) may fit now too
        }
        endIfFinished(JobState.of(u));
    }

    /**
     * A unit's job master keeps it off other nodes from now on: checked as a submitted blacklist is
     * (node names), then the unit is placed again where it may go. What it holds stays.
     */
    public void blacklistChanged(UnitBlacklistChanged e) {
        UnitState u = requireUnit(e.unit());
        u.request().withBlacklist(e.nodes()); // refuses a name that is no node name, before anything changes
        workload.blacklist(u, e.nodes(), view.now());
        agenda.fresh(u);
    }

    public void unitCancelled(UnitCancelled e) {
        UnitState u = requireUnit(e.unit());
        cancel(u);
        if (u.job().gang()) {
            agenda.fresh(u);   // the rest of a gang job wants less now and may fit
        }
        endIfFinished(JobState.of(u));
    }

    public void jobCancelled(JobCancelled e) {
        JobState job = requireJob(e.job());
        for (UnitState u : job.units()) {
            cancel(u);
        }
        endIfFinished(job);
    }

    public void moved(JobMoved e) {
        JobState job = requireJob(e.job());
        String to = policies.groupResolver().resolve(e.group(), view);
        if (to.equals(job.group())) {
            throw new InvalidRequestException("job " + job.id(), "group", "is already in " + to);
        }
        filter(job.spec().withGroup(to));
        workload.move(job, to, view.now());
        // limits of both queues changed (running jobs, capacity headroom): look at everything again
        reconsider.run();
    }

    /** The job with its group resolved to a full group name by the group resolver in effect. */
    private JobSpec resolved(JobSpec spec) {
        String group = policies.groupResolver().resolve(spec.group(), view);
        return group.equals(spec.group()) ? spec : spec.withGroup(group);
    }

    public void released(GrantReleased e) {
        UnitState u = requireUnit(e.unit());
        NodeState n = cluster.node(e.node());
        String subject = "unit " + u.id();
        if (n == null) {
            throw new InvalidRequestException(InvalidRequestException.NOT_FOUND,
                    Problem.of(subject, "node", "no node named '" + Text.escape(e.node()) + "' in the cluster"));
        }
        int held = u.slotsOn(n);
        if (e.slots() <= 0 || e.slots() > held) {
            throw new InvalidRequestException(Problem.of(subject, "slots", "holds " + held + " slots on node " + n.name()
                    + ", cannot release " + e.slots(), held, e.slots()));
        }
        long heldMillis = view.now() - u.heldSince(n);
        for (CycleAction a : policies.cycleActions()) {
            try {
                a.released(u, e.slots(), heldMillis, view);
            } catch (RuntimeException advisory) {
                // what a policy learns from a release is advice: the release itself must happen
            }
        }
        allocator.take(u, n, e.slots(), true, "released");
        endIfFinished(JobState.of(u));
    }

    private void cancel(UnitState u) {
        if (!u.live()) {
            return;
        }
        workload.end(u, view.now());
        for (Map.Entry<NodeState, Integer> g : u.nodes().entrySet()) {   // a copy: the takes change the unit
            allocator.take(u, g.getKey(), g.getValue(), false, "cancelled");
        }
    }

    private void endIfFinished(JobState job) {
        if (job.finished()) {
            workload.removeJob(job);
        }
    }

    /** Checks what validating a unit needs the cluster for: a node it fits on, known locality targets. */
    private void checkUnit(String subject, String field, UnitSpec u, Problems problems) {
        if (!fitsSomeNode(u)) {
            problems.add(word(ReasonCode.TOO_LARGE), Problem.of(subject, field + ".slot", "slot " + u.slot() + " is larger than every node"
                    + " (largest per resource: " + cluster.largestNode() + ", " + cluster.size() + " nodes)"));
        }
        for (int i = 0; i < u.locality().size(); i++) {
            Locality l = u.locality().get(i);
            String f = field + ".locality[" + i + "].target";
            if (l.level() == Locality.Level.MACHINE && cluster.node(l.target()) == null) {
                problems.add(InvalidRequestException.INVALID, Problem.of(subject, f, "no node named '" + l.target() + "' in the cluster"));
            } else if (l.level() == Locality.Level.ROOM && cluster.room(l.target()) == null) {
                problems.add(InvalidRequestException.INVALID,
                        Problem.of(subject, f, "no room named '" + l.target() + "'; rooms: " + cluster.rooms()));
            }
        }
    }

    private boolean fitsSomeNode(UnitSpec u) {
        if (!u.slot().fitsIn(cluster.largestNode())) {
            return false;
        }
        for (NodeState n : cluster.nodes()) {
            if (u.slot().fitsIn(n.capacity())) {
                return true;
            }
        }
        return false;
    }

    private void filter(JobSpec job) {
        for (SubmitFilter f : policies.submitFilters()) {
            Verdict v = f.check(job, view);
            if (v.code() == Verdict.Code.REJECT) {
                String why = v.reason() == null ? "refused by policy " + f.name() : v.reason().message();
                Long limit = v.reason() != null && v.reason().limit() >= 0 ? v.reason().limit() : null;
                Long value = v.reason() != null && v.reason().value() >= 0 ? v.reason().value() : null;
                String subject = v.reason() != null ? v.reason().subject() : "job " + job.id();
                String reason = v.reason() == null ? InvalidRequestException.INVALID : word(v.reason().code());
                throw new InvalidRequestException(reason, new Problem(subject, "policy " + f.name(), why, limit, value));
            }
        }
    }

    private static JobSpec withDesire(UnitState u, int desired) {
        JobSpec s = u.job().spec();
        List<UnitSpec> units = new ArrayList<>();
        for (UnitSpec x : s.units()) {
            units.add(x.name().equals(u.spec().name()) ? x.withDesired(desired) : x);
        }
        return new JobSpec(s.id(), s.group(), s.user(), s.productionLevel(), s.gang(), units);
    }

    private JobState requireJob(String id) {
        JobState j = workload.job(id);
        if (j == null) {
            throw new InvalidRequestException(InvalidRequestException.NOT_FOUND,
                    Problem.of("job " + Text.escape(id), "job", "no running job with id '" + Text.escape(id) + "'"));
        }
        return j;
    }

    private UnitState requireUnit(UnitId id) {
        UnitState u = workload.unit(id);
        if (u == null || !u.live()) {
            throw new InvalidRequestException(InvalidRequestException.NOT_FOUND,
                    Problem.of("unit " + id, "unit", "no live unit '" + Text.escape(String.valueOf(id)) + "'"));
        }
        return u;
    }

    /** A why-not reason code as a refusal's reason word: {@code TOO_LARGE} is {@code too_large}. */
    private static String word(ReasonCode code) {
        return code.name().toLowerCase(Locale.ROOT);
    }

    /** The problems found so far, and the reason of the first: what the refusal says it is for. */
    private static final class Problems {
        private final List<Problem> list = new ArrayList<>();
        private String reason;

        void add(String why, Problem p) {
            reason = reason == null ? why : reason;
            list.add(p);
        }

        void addAll(InvalidRequestException refused) {
            reason = reason == null ? refused.reason() : reason;
            list.addAll(refused.problems());
        }

        void throwIfAny() {
            if (!list.isEmpty()) {
                throw new InvalidRequestException(reason, list);
            }
        }
    }
}
