package granary.sim.run;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;

import granary.api.model.UnitId;
import granary.sim.workload.SimUnit;

/**
 * The job master's view of one unit during a replay: when it asked, when it first got slots, the
 * tasks still to run, and the running slots per node in batches (one batch per grant, released
 * together when its run time is over).
 */
final class UnitTrack {

    /** Slots granted together on one node; they end together unless revoked first. */
    static final class Batch {
        final UnitTrack unit;
        final String node;
        final long start;
        int slots;

        Batch(UnitTrack unit, String node, long start, int slots) {
            this.unit = unit;
            this.node = node;
            this.start = start;
            this.slots = slots;
        }
    }

    final SimUnit unit;
    final JobTrack job;
    final UnitId id;
    long requestedAt = -1;
    long firstGrantAt = -1;
    int granted;
    int remainingTasks;
    int depsLeft;
    boolean refused;
    boolean finished;
    /** Since when slots of the remaining demand wait: (time, count) pairs, oldest first. */
    final ArrayDeque<long[]> demand = new ArrayDeque<>();
    final Map<String, ArrayDeque<Batch>> running = new HashMap<>();

    UnitTrack(SimUnit unit, JobTrack job) {
        this.unit = unit;
        this.job = job;
        this.id = new UnitId(job.job.id(), unit.name());
        this.remainingTasks = unit.spec().desired();
        this.depsLeft = unit.after().size();
    }

    /** Slots still wanted: tasks not yet done minus slots running. */
    int desire() {
        return requestedAt < 0 || refused ? 0 : remainingTasks - granted;
    }

    boolean requested() {
        return requestedAt >= 0 && !refused;
    }
}
