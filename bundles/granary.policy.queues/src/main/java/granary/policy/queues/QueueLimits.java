package granary.policy.queues;

import granary.api.model.Resources;
import granary.api.spi.EngineView;
import granary.api.spi.GroupView;
import granary.api.spi.JobView;
import granary.api.spi.Reason;
import granary.api.spi.UnitView;
import granary.api.spi.Verdict;
import granary.policy.queues.QueueIndex.Queue;

/**
 * The limits a queue puts on its leaves (docs/multi-tenancy.md, "Queues by full path"): the maximum capacity of the leaf and of every
 * ancestor, and the most running jobs, in all and per user, of the leaf and of every ancestor. An
 * inner queue counts what all the leaves below it hold.
 *
 * <p>Running-job limits hold back only a job that holds nothing yet: a running job is never
 * stopped, and may keep growing within the capacities. Reasons name the queue by full path and carry
 * the limit and the observed value as fields.
 */
final class QueueLimits {

    private QueueLimits() {
    }

    /**
     * Cheap test before the engine searches a group's queue: WAIT when a maximum on the chain has no
     * room left in any resource (so no slot can fit), or when a running-job limit on the chain is
     * reached and none of the group's jobs runs (so every waiting unit belongs to a job that may not
     * start). Per-user limits are left to {@link #admit}: they depend on the unit's job.
     */
    static Verdict admitGroup(Queue leaf, GroupView group, EngineView view) {
        if (leaf.jobLimits && group.runningJobs() == 0) {
            for (Queue q : leaf.chain) {
                Reason r = totalRunningReached(q, view);
                if (r != null) {
                    return Verdict.waitFor(r);
                }
            }
        }
        for (Queue q : leaf.chain) {
            if (q.bounded) {
                Resources used = QueueIndex.used(q, view);
                if (!anyPositive(q.maximum.minus(used))) {
                    return Verdict.waitFor(full(q, used, 0, 1, null));
                }
            }
        }
        return Verdict.ALLOW;
    }

    /** At most how many of {@code wanted} slots the unit may have under its queue's limits. */
    static Verdict admit(Queue leaf, UnitView unit, int wanted, EngineView view) {
        if (leaf.jobLimits && !holdsSlots(unit.job())) {
            Reason r = runningReached(leaf, unit.job().user(), view);
            if (r != null) {
                return Verdict.waitFor(r);
            }
        }
        int allowed = wanted;
        Reason why = null;
        for (Queue q : leaf.chain) {
            if (!q.bounded) {
                continue;
            }
            Resources used = QueueIndex.used(q, view);
            int n = unit.slot().copiesIn(q.maximum.minus(used));
            if (n < allowed) {
                allowed = n;
                why = full(q, used, n, wanted, unit.slot());
                if (n == 0) {
                    break;
                }
            }
        }
        return why == null ? Verdict.ALLOW : Verdict.allow(allowed, why);
    }

    /** The first running-job limit on the chain (leaf first) that a new job of {@code user} would break. */
    static Reason runningReached(Queue leaf, String user, EngineView view) {
        for (Queue q : leaf.chain) {
            Reason r = totalRunningReached(q, view);
            if (r != null) {
                return r;
            }
            int perUser = q.spec.maxRunningJobsPerUser();
            if (perUser > 0) {
                int running = QueueIndex.runningJobs(q, user, view);
                if (running >= perUser) {
                    return new Reason(QueueReasons.MAX_RUNNING, "queue " + q.path, "max running jobs per user "
                            + perUser + " reached (user " + user + ": " + running + " running)", perUser, running);
                }
            }
        }
        return null;
    }

    private static Reason totalRunningReached(Queue q, EngineView view) {
        int max = q.spec.maxRunningJobs();
        if (max <= 0) {
            return null;
        }
        int running = QueueIndex.runningJobs(q, view);
        return running < max ? null : new Reason(QueueReasons.MAX_RUNNING, "queue " + q.path,
                "max running jobs " + max + " reached (" + running + " running)", max, running);
    }

    /**
     * Why the queue's maximum leaves room for only {@code n} of {@code wanted} slots. Limit and value
     * are those of the resource that binds (for {@code slot}; cpu when no slot is known).
     */
    private static Reason full(Queue q, Resources used, int n, int wanted, Resources slot) {
        String binding = binding(q.maximum.minus(used), slot);
        String what = n == 0 ? "max " + q.maximum + " reached (used " + used + ")"
                : "max " + q.maximum + " leaves room for " + n + " of " + wanted + " slots (used " + used + ")";
        return new Reason(QueueReasons.QUOTA, "queue " + q.path, what, q.maximum.get(binding), used.get(binding));
    }

    /** The resource of {@code slot} that fits the fewest times in {@code room}. */
    private static String binding(Resources room, Resources slot) {
        if (slot == null) {
            return "cpu";
        }
        String best = "cpu";
        double fewest = Double.POSITIVE_INFINITY;
        for (String r : resourcesOf(slot)) {
            long need = slot.get(r);
            double copies = need <= 0 ? Double.POSITIVE_INFINITY : (double) room.get(r) / need;
            if (copies < fewest) {
                fewest = copies;
                best = r;
            }
        }
        return best;
    }

    private static String[] resourcesOf(Resources r) {
        String[] names = new String[2 + r.extendedCount()];
        names[0] = "cpu";
        names[1] = "mem";
        for (int i = 0; i < r.extendedCount(); i++) {
            names[2 + i] = r.extendedName(i);
        }
        return names;
    }

    /** True if some resource has a positive amount: a slot asking only for it might still fit. */
    private static boolean anyPositive(Resources room) {
        if (room.cpu() > 0 || room.memMb() > 0) {
            return true;
        }
        for (int i = 0; i < room.extendedCount(); i++) {
            if (room.extendedValue(i) > 0) {
                return true;
            }
        }
        return false;
    }

    /** True if some unit of the job holds a slot: the job runs. */
    static boolean holdsSlots(JobView job) {
        for (UnitView u : job.units()) {
            if (u.granted() > 0) {
                return true;
            }
        }
        return false;
    }
}
