package granary.master;

import granary.api.model.JobSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.protocol.Program;
import granary.protocol.Request;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The job masters the master is starting again after their timeout (spec case 3, docs/recovery.md
 * "Restarting a lost job master"). Each restart is a job of the master's own, {@code
 * granary.restart-<n>@<job master>}, with one online unit {@value #UNIT} of one slot of the size the
 * job master asked for: the engine places it within every node's capacity like any work, and the
 * cap of that slot carries the launch to its agent. Touched only in turns of the master's loop.
 */
final class Restarts {

    /** The job master id the caps of restart slots are issued for: the master itself; no job master may use it. */
    static final String OWNER = "granary.master";
    /** Job ids starting with this are the master's restarts; a job master may not use them. */
    static final String PREFIX = "granary.restart-";
    /** The unit of a restart job. */
    static final String UNIT = "job-master";
    /**
     * A restart's priority, above any job's usual one: a freed slot goes to the lost job master
     * first, before the units of its own batch that wait for slots nobody would plan into.
     */
    static final int PRIORITY = 1_000_000;

    /** One start of job master {@code jobMaster}: its job's unit, what it runs, and the node it landed on (null: waiting). */
    static final class Run {
        final String jobMaster;
        final UnitId unit;
        final Program program;
        final UnitSpec spec;
        /** Its start's number, n of {@code granary.restart-<n>@...}: of two runs of a job master, the higher is the later. */
        final int number;
        String node;
        /** When its slot was granted: a start that has not reported back a timeout later is tried again. */
        long launchedAt;
        /** The incarnation that was lost: fenced once this start runs (docs/recovery.md, "Restarting a lost job master"). */
        long lostIncarnation = -1;

        Run(String jobMaster, UnitId unit, Program program, UnitSpec spec, int number) {
            this.jobMaster = jobMaster;
            this.unit = unit;
            this.program = program;
            this.spec = spec;
            this.number = number;
        }

        JobSpec job() {
            return new JobSpec(unit.job(), JobSpec.DEFAULT_GROUP, OWNER, 0, false, List.of(spec));
        }
    }

    private final Map<String, Run> byJob = new HashMap<>();
    private final Map<String, Run> byJobMaster = new HashMap<>();
    private final Map<String, Integer> starts = new HashMap<>();
    /**
     * Per job master, a run whose process died and that is to be started again: its slot, whose cap
     * carries the launch, is kept until a later start's process runs (or the job master speaks), so
     * that a master that fails over meanwhile learns the spec from that cap (docs/recovery.md,
     * "Restarting a lost job master").
     */
    private final Map<String, Run> spent = new HashMap<>();

    static boolean isRestartJob(String job) {
        return job.startsWith(PREFIX);
    }

    /**
     * A new run of {@code jobMaster} as {@code spec} says, kept off {@code avoid} (null: anywhere):
     * its last node, so that it comes back on another one (case 3 of docs/recovery.md, "The 17 cases").
     */
    Run begin(String jobMaster, Request.Restart spec, String avoid) {
        int n = starts.merge(jobMaster, 1, Integer::sum);
        UnitId unit = new UnitId(PREFIX + n + "@" + jobMaster, UNIT);
        UnitSpec u = new UnitSpec(UNIT, spec.size(), 1, PRIORITY, List.of(), 0, avoid == null ? Set.of() : Set.of(avoid),
                Map.of(), false, UnitKind.ONLINE);
        Run r = new Run(jobMaster, unit, spec.program(), u, n);
        byJob.put(unit.job(), r);
        byJobMaster.put(jobMaster, r);
        return r;
    }

    /**
     * A run a master that restarted finds in an agent's caps (the cap of a restart slot carries its
     * launch): taken on again, so that its process's exit ends it, its job master's return fences the
     * incarnations before, and a next start numbers on (docs/recovery.md, "Restarting a lost job
     * master"). Null if {@code unit} names no restart.
     */
    Run recover(UnitId unit, Program program, Resources size, String node, long now) {
        String job = unit.job();
        int at = job.lastIndexOf('@');
        if (!isRestartJob(job) || at < 0 || at == job.length() - 1 || byJob.containsKey(job)) {
            return null;
        }
        String jobMaster = job.substring(at + 1);
        int n;
        try {
            n = Integer.parseInt(job.substring(PREFIX.length(), at));
        } catch (NumberFormatException ex) {
            return null;
        }
        starts.merge(jobMaster, n, Math::max);
        UnitSpec u = new UnitSpec(UNIT, size, 1, PRIORITY, List.of(), 0, Set.of(), Map.of(), false, UnitKind.ONLINE);
        Run r = new Run(jobMaster, unit, program, u, n);
        r.node = node;
        r.launchedAt = now;
        byJob.put(job, r);
        Run other = byJobMaster.get(jobMaster);
        if (other != null && other.number > n) {
            spent.put(jobMaster, r); // a died start the master kept for its launch; the later one is current
        } else {
            if (other != null) {
                spent.put(jobMaster, other);
            }
            byJobMaster.put(jobMaster, r);
        }
        return r;
    }

    /** The run of restart job {@code job}, or null. */
    Run of(String job) {
        return byJob.get(job);
    }

    /** The current run of {@code jobMaster}, or null. */
    Run current(String jobMaster) {
        return byJobMaster.get(jobMaster);
    }

    /** The run ended (its process exited, or it was cancelled): forgotten. */
    void end(Run r) {
        byJob.remove(r.unit.job());
        byJobMaster.remove(r.jobMaster, r);
        spent.remove(r.jobMaster, r);
    }

    /**
     * The process of run {@code r} died and its job master is to be started again: it is no longer
     * the current run, but it keeps its slot (see {@link #spent}). Returns the run it displaces as
     * spent, to end now, or null.
     */
    Run retire(Run r) {
        byJobMaster.remove(r.jobMaster, r);
        Run older = spent.put(r.jobMaster, r);
        return older == r ? null : older;
    }

    /** The spent run of {@code jobMaster}, removed (to end: a later start holds the launch now), or null. */
    Run takeSpent(String jobMaster) {
        return spent.remove(jobMaster);
    }

    /** True if {@code r} is a spent run: its process died, its slot is kept for its launch only. */
    boolean isSpent(Run r) {
        return spent.get(r.jobMaster) == r;
    }

    /** What the cap of {@code unit} launches, or null if it is no restart. */
    Program launch(UnitId unit) {
        Run r = byJob.get(unit.job());
        return r == null ? null : r.program;
    }

    /** The owner a cap of {@code job} names: {@link #OWNER} for a restart, else null. */
    String owner(String job) {
        return byJob.containsKey(job) ? OWNER : null;
    }

    /** The slot size of {@code unit} if it is a restart's, else null. */
    Resources size(UnitId unit) {
        Run r = byJob.get(unit.job());
        return r == null ? null : r.spec.slot();
    }
}
