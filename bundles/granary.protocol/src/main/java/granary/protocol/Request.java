package granary.protocol;

import granary.api.model.JobSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * Job master → master: what the job master wants. With {@code full} true (the first request after
 * it connects or the master restarted) it is the complete list of its jobs, and the master forgets
 * any of its jobs not listed; otherwise it is a delta to apply to what the master already holds.
 *
 * @param full     true: {@code jobs} is everything this job master runs; false: a delta
 * @param jobs     jobs (with their units) added, or replaced when the id is known
 * @param desires  new desired slot counts of units already known
 * @param cancels  ids of jobs to drop, with every slot they hold
 * @param releases slots given back on one node
 * @param holdings with {@code full}: the slots the job master holds, per unit and node, as the
 *                 master's hints told it (from memory, or from its own checkpoint); a master that
 *                 restarted uses them for agents that do not report (docs/recovery.md). Empty in a
 *                 delta.
 * @param restart  with {@code full}, optionally: how the master may start this job master again when
 *                 it is declared lost (docs/recovery.md, "Restarting a lost job
 *                 master"); null: nobody but its own operator restarts it. Null in a delta.
 * @param mark     a number the job master gives each request, larger than the one before (0: none).
 *                 Each hint says the mark of the last request applied before it was written
 *                 ({@link Hint#through}), so that the job master knows which of its releases a
 *                 hint's placements count already (docs/protocol.md, "Marks"). Protocol version 4
 */
public record Request(boolean full, List<JobSpec> jobs, List<Desire> desires, List<String> cancels,
                      List<Release> releases, List<Holding> holdings, Restart restart, long mark) implements Message {

    /** A request without a mark. */
    public Request(boolean full, List<JobSpec> jobs, List<Desire> desires, List<String> cancels,
                   List<Release> releases, List<Holding> holdings, Restart restart) {
        this(full, jobs, desires, cancels, releases, holdings, restart, 0);
    }

    /** This request with {@code m} as its mark. */
    public Request withMark(long m) {
        return new Request(full, jobs, desires, cancels, releases, holdings, restart, m);
    }

    /** A request without holdings. */
    public Request(boolean full, List<JobSpec> jobs, List<Desire> desires, List<String> cancels, List<Release> releases) {
        this(full, jobs, desires, cancels, releases, List.of());
    }

    /** A request without a restart spec. */
    public Request(boolean full, List<JobSpec> jobs, List<Desire> desires, List<String> cancels, List<Release> releases,
                   List<Holding> holdings) {
        this(full, jobs, desires, cancels, releases, holdings, null);
    }

    /**
     * How to start the job master again: {@code program} in a slot of {@code size} (an online slot
     * the master holds for it), preferably not on {@code node}, where it runs now (null: not said).
     */
    public record Restart(Program program, Resources size, String node) {
        public Restart {
            Objects.requireNonNull(program, "program");
            Objects.requireNonNull(size, "size");
        }
    }

    /** {@code unit} holds {@code slots} slots on {@code node}, as the last hint said. */
    public record Holding(UnitId unit, String node, int slots) {
        public Holding {
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(node, "node");
        }
    }


    /** The most nodes one desire may keep its unit off. */
    public static final int MAX_AVOIDED = 1_000;

    /**
     * A unit now wants {@code desired} slots in total, kept off the nodes of {@code avoid} when it
     * is not null: the job master's own blacklist for the unit, replacing the one before (empty:
     * none); null leaves it as it is (docs/agent.md, "Blacklisting a node for one job").
     */
    public record Desire(UnitId unit, int desired, Set<String> avoid) {
        public Desire {
            Objects.requireNonNull(unit, "unit");
            avoid = avoid == null ? null : Set.copyOf(new TreeSet<>(avoid));
        }

        /** A new desired count; the unit's blacklist stays as it is. */
        public Desire(UnitId unit, int desired) {
            this(unit, desired, null);
        }
    }

    /** The job master gives back {@code slots} of {@code unit}'s slots on {@code node}. */
    public record Release(UnitId unit, String node, int slots) {
        public Release {
            Objects.requireNonNull(unit, "unit");
            Objects.requireNonNull(node, "node");
        }
    }

    public Request {
        jobs = List.copyOf(jobs);
        desires = List.copyOf(desires);
        cancels = List.copyOf(cancels);
        releases = List.copyOf(releases);
        holdings = List.copyOf(holdings);
    }

    @Override
    public String type() {
        return "request";
    }
}
