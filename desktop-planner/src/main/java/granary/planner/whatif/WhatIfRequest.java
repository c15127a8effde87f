package granary.planner.whatif;

import java.nio.file.Path;
import java.util.Objects;

import granary.policy.quota.api.QuotaTable;
import granary.sim.trace.TraceFormat;

/**
 * One what-if: a trace (a cut of it) replayed through the draft and through the table in force.
 *
 * @param trace        the trace file
 * @param format       how to read it (the simulator's formats)
 * @param cluster      the simulator's cluster text ({@code nodes=100,cpu=6400,mem=262144}, {@code file:PATH};
 *                     several parts separated by {@code ;}); blank: the cluster the trace describes or implies
 * @param maxJobs      replay only the first jobs by arrival; 0: all
 * @param untilSeconds replay only jobs arriving until then (trace time); 0: all
 * @param groups       how jobs land in the tables' groups
 * @param unitOrder    the unit-order policy paired with quota, e.g. {@code submitwindow}
 * @param draft        the drafted table (it may carry WorkerSpans)
 * @param inForce      the table in force (it may carry WorkerSpans)
 * @param startEpochMs the moment (UTC) trace time 0 is replayed at: the slices and billing days count hours
 *                     from it, so a replay may start at any time of day and date
 */
public record WhatIfRequest(Path trace, TraceFormat format, String cluster, long maxJobs, long untilSeconds,
                            GroupAssignment groups, String unitOrder, QuotaTable draft, QuotaTable inForce,
                            long startEpochMs) {

    /** A replay starting at the simulator's default moment, 2024-01-01 00:00 UTC. */
    public WhatIfRequest(Path trace, TraceFormat format, String cluster, long maxJobs, long untilSeconds,
                         GroupAssignment groups, String unitOrder, QuotaTable draft, QuotaTable inForce) {
        this(trace, format, cluster, maxJobs, untilSeconds, groups, unitOrder, draft, inForce, DEFAULT_START);
    }

    /** The simulator's default start: 2024-01-01T00:00:00Z. */
    public static final long DEFAULT_START = granary.sim.run.SimSettings.DEFAULT_START;

    /** The unit order a what-if pairs with the table's policy unless told otherwise (planner.properties, {@code whatif.unit-order}). */
    public static final String DEFAULT_UNIT_ORDER = granary.planner.master.PlannerSettings.defaults().unitOrder();

    public WhatIfRequest {
        Objects.requireNonNull(trace, "trace file");
        Objects.requireNonNull(format, "trace format");
        Objects.requireNonNull(groups, "group assignment");
        Objects.requireNonNull(draft, "draft table");
        Objects.requireNonNull(inForce, "table in force");
        cluster = cluster == null ? "" : cluster.trim();
        unitOrder = unitOrder == null || unitOrder.isBlank() ? DEFAULT_UNIT_ORDER : unitOrder.trim();
        if (maxJobs < 0 || untilSeconds < 0) {
            throw new IllegalArgumentException("job limit and until must not be negative (0: no limit), got "
                    + maxJobs + " and " + untilSeconds);
        }
    }

    /** The trace, the defaults: its own cluster, every job, hashed into the tables' groups, the default unit order. */
    public static WhatIfRequest of(Path trace, TraceFormat format, QuotaTable draft, QuotaTable inForce) {
        return new WhatIfRequest(trace, format, "", 0, 0, GroupAssignment.hashIntoTableGroups(), DEFAULT_UNIT_ORDER,
                draft, inForce, DEFAULT_START);
    }

    public WhatIfRequest withCluster(String text) {
        return new WhatIfRequest(trace, format, text, maxJobs, untilSeconds, groups, unitOrder, draft, inForce, startEpochMs);
    }

    public WhatIfRequest withMaxJobs(long n) {
        return new WhatIfRequest(trace, format, cluster, n, untilSeconds, groups, unitOrder, draft, inForce, startEpochMs);
    }

    public WhatIfRequest withGroups(GroupAssignment g) {
        return new WhatIfRequest(trace, format, cluster, maxJobs, untilSeconds, g, unitOrder, draft, inForce, startEpochMs);
    }

    public WhatIfRequest withStart(long epochMs) {
        return new WhatIfRequest(trace, format, cluster, maxJobs, untilSeconds, groups, unitOrder, draft, inForce, epochMs);
    }

    public WhatIfRequest withUnitOrder(String name) {
        return new WhatIfRequest(trace, format, cluster, maxJobs, untilSeconds, groups, name, draft, inForce, startEpochMs);
    }
}
