package granary.engine.state;

import java.util.Comparator;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

import granary.api.model.Resources;
import granary.api.spi.GroupView;

/**
 * A group queue: the units of one group that wait, split into the per-slot {@link #queue} served
 * node by node, and the {@link #gangs} queue of all-or-nothing units served whole.
 */
public final class GroupState implements GroupView {

    private final String name;
    final FitQueue queue;
    final FitQueue gangs;
    private Resources used = Resources.ZERO;
    private long usedSlots;
    private long waitingSlots;
    int jobs;
    private int runningJobs;
    private final Map<String, Integer> runningByUser = new HashMap<>();
    /** Jobs holding slots by the order they started holding ({@link JobState#runningSeq}): walked both ways. */
    private final TreeMap<Long, JobState> running = new TreeMap<>();
    private long runningSeq;

    GroupState(String name, Comparator<UnitState> order) {
        this.name = name;
        this.queue = new FitQueue(order);
        this.gangs = new FitQueue(order);
    }

    /** The units that wait for slots one by one, served node by node. */
    public FitQueue queue() {
        return queue;
    }

    /** The all-or-nothing units, served whole. */
    public FitQueue gangs() {
        return gangs;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Resources used() {
        return used;
    }

    @Override
    public long usedSlots() {
        return usedSlots;
    }

    @Override
    public int waitingUnits() {
        return queue.size() + gangs.size();
    }

    @Override
    public long waitingSlots() {
        return waitingSlots;
    }

    @Override
    public int runningJobs() {
        return runningJobs;
    }

    @Override
    public int runningJobs(String user) {
        return runningByUser.getOrDefault(user, 0);
    }

    @Override
    public Iterable<JobState> running() {
        return Collections.unmodifiableCollection(running.values());
    }

    @Override
    public Iterable<JobState> runningNewestFirst() {
        return Collections.unmodifiableCollection(running.descendingMap().values());
    }

    void running(JobState job, int delta) {
        if (delta > 0) {
            job.runningSeq = ++runningSeq;
            running.put(job.runningSeq, job);
        } else {
            running.remove(job.runningSeq);
        }
        String user = job.user();
        runningJobs += delta;
        int n = runningByUser.getOrDefault(user, 0) + delta;
        if (n == 0) {
            runningByUser.remove(user);
        } else {
            runningByUser.put(user, n);
        }
    }

    @Override
    public int jobs() {
        return jobs;
    }

    void granted(UnitState u, int n) {
        used = used.plus(u.slot().times(n));
        usedSlots += n;
    }

    void waiting(long delta) {
        waitingSlots += delta;
    }

    @Override
    public String toString() {
        return name;
    }
}
