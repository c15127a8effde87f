package granary.policy.reservation;

import java.util.ArrayList;
import java.util.List;

import granary.api.model.Resources;
import granary.api.spi.JobView;
import granary.api.spi.UnitView;

/** What the reservation reads of a job: its waiting units, since when it waits, its priority, its need. */
final class Jobs {

    private Jobs() {
    }

    /** Live units that still want slots. */
    static List<UnitView> waitingUnits(JobView job) {
        List<UnitView> out = new ArrayList<>();
        for (UnitView u : job.units()) {
            if (u.live() && u.remaining() > 0) {
                out.add(u);
            }
        }
        return out;
    }

    /** The earliest {@link UnitView#waitingSince} of its waiting units, or -1 if none waits. */
    static long waitingSince(JobView job) {
        long since = -1;
        for (UnitView u : job.units()) {
            if (u.live() && u.remaining() > 0 && u.waitingSince() >= 0) {
                since = since < 0 ? u.waitingSince() : Math.min(since, u.waitingSince());
            }
        }
        return since;
    }

    /** A job's priority: the highest priority of its live units. */
    static int priority(JobView job) {
        int p = Integer.MIN_VALUE;
        for (UnitView u : job.units()) {
            if (u.live()) {
                p = Math.max(p, u.priority());
            }
        }
        return p;
    }

    /** What it still wants: slot × remaining over its waiting units. */
    static Resources need(JobView job) {
        Resources need = Resources.ZERO;
        for (UnitView u : job.units()) {
            if (u.live() && u.remaining() > 0) {
                need = need.plus(u.slot().times(u.remaining()));
            }
        }
        return need;
    }

    /** The resource in which {@code need} takes the largest share of {@code total} (cpu on a tie). */
    static String mainResource(Resources need, Resources total) {
        return need.dominantResource(total);
    }
}
