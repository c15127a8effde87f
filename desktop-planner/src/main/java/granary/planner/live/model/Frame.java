package granary.planner.live.model;

import java.util.List;
import java.util.Map;

/**
 * What the live view shows at one moment: an immutable copy of the {@link ClusterModel}, made at most
 * once per UI pulse by the {@link Coalescer}. Node data are parallel arrays indexed like
 * {@link Topology#names()}, so that a redraw is one pass over arrays, not a walk over objects.
 */
public final class Frame {

    /** A group's (queue's) usage and waiting work as the stream last said. */
    public record GroupUsage(String path, long usedSlots, long usedCpu, long usedMem, long waitingUnits, long waitingSlots) {
    }

    /**
     * A group's used slots and cpu granted, one sample per {@code sampleMillis} over the last hour, oldest
     * first, {@link UsageHistory#UNKNOWN} where it was not seen (not connected, or the group did not exist).
     *
     * @param endMillis when the hour ends: the end of the latest sample's period
     */
    public record GroupHistory(String path, long[] usedSlots, long[] usedCpu, long sampleMillis, long endMillis) {
    }

    /** A job's slots granted as seen on the stream since the last snapshot, on {@code grants} unit-node pairs. */
    public record JobUsage(String job, long slots, int grants) {
    }

    private final Topology topology;
    private final long[] grantedCpu;
    private final long[] grantedMem;
    private final long[] capacityCpu;
    private final long[] capacityMem;
    private final int[] slots;
    private final boolean[] blacklisted;
    private final List<GroupUsage> groups;
    private final List<GroupHistory> history;
    private final List<JobUsage> jobs;
    private final int jobCount;
    private final Map<String, String> inEffect;
    private final long eventsApplied;
    private final long seq;
    private final String lastEventId;
    private final long problems;
    private final List<String> lastProblems;

    Frame(Topology topology, long[] grantedCpu, long[] grantedMem, long[] capacityCpu, long[] capacityMem, int[] slots,
          boolean[] blacklisted, List<GroupUsage> groups, List<GroupHistory> history, List<JobUsage> jobs, int jobCount,
          Map<String, String> inEffect, long eventsApplied, long seq, String lastEventId, long problems, List<String> lastProblems) {
        this.topology = topology;
        this.grantedCpu = grantedCpu;
        this.grantedMem = grantedMem;
        this.capacityCpu = capacityCpu;
        this.capacityMem = capacityMem;
        this.slots = slots;
        this.blacklisted = blacklisted;
        this.groups = List.copyOf(groups);
        this.history = List.copyOf(history);
        this.jobs = List.copyOf(jobs);
        this.jobCount = jobCount;
        this.inEffect = Map.copyOf(inEffect);
        this.eventsApplied = eventsApplied;
        this.seq = seq;
        this.lastEventId = lastEventId;
        this.problems = problems;
        this.lastProblems = List.copyOf(lastProblems);
    }

    public Topology topology() {
        return topology;
    }

    /** Node {@code i}'s utilisation, 0 to 1: the larger of its cpu and memory shares granted (0 without capacity). */
    public double utilisation(int i) {
        double cpu = capacityCpu[i] > 0 ? (double) grantedCpu[i] / capacityCpu[i] : 0;
        double mem = capacityMem[i] > 0 ? (double) grantedMem[i] / capacityMem[i] : 0;
        return Math.max(0, Math.min(1, Math.max(cpu, mem)));
    }

    public long grantedCpu(int i) {
        return grantedCpu[i];
    }

    public long grantedMem(int i) {
        return grantedMem[i];
    }

    public long capacityCpu(int i) {
        return capacityCpu[i];
    }

    public long capacityMem(int i) {
        return capacityMem[i];
    }

    /** Slots granted on node {@code i} by the grants, revocations and releases seen since the last snapshot. */
    public int slots(int i) {
        return slots[i];
    }

    public boolean blacklisted(int i) {
        return blacklisted[i];
    }

    /** Every group by path. */
    public List<GroupUsage> groups() {
        return groups;
    }

    /** Every group's usage over the last hour. */
    public List<GroupHistory> history() {
        return history;
    }

    /** The jobs holding the most slots (at most {@link ClusterModel#JOBS_SHOWN}), most first. */
    public List<JobUsage> jobs() {
        return jobs;
    }

    /** How many jobs hold slots granted on the stream, shown or not. */
    public int jobCount() {
        return jobCount;
    }

    /** Extension point → policy in effect. */
    public Map<String, String> inEffect() {
        return inEffect;
    }

    /** Events applied since the model was made (malformed ones not counted). */
    public long eventsApplied() {
        return eventsApplied;
    }

    /** The sequence number of the latest event applied. */
    public long seq() {
        return seq;
    }

    /** The id to resume after ({@code Last-Event-ID}), or null before the first event. */
    public String lastEventId() {
        return lastEventId;
    }

    /** Lines and events skipped because they were malformed. */
    public long problems() {
        return problems;
    }

    /** The latest problems, each with its line, oldest first. */
    public List<String> lastProblems() {
        return lastProblems;
    }
}
