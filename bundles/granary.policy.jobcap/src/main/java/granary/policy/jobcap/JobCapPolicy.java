package granary.policy.jobcap;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import granary.api.spi.Admission;
import granary.api.spi.EngineView;
import granary.api.spi.JobView;
import granary.api.spi.Reason;
import granary.api.spi.UnitView;
import granary.api.spi.Verdict;

/**
 * Admission: at most {@code maxSlots} slots held by one job at once (README.md, "jobcap"). Asked once
 * per unit the engine picks, it adds up the slots the unit's job holds (a walk over the job's few
 * units) and allows what is left under the cap; at the cap the unit waits with {@link #JOB_CAP_NAME}.
 * It keeps no state: what a job holds is read from the view each time, so a swap, a restart or a
 * lowered cap needs nothing from it.
 */
public final class JobCapPolicy implements Admission {

    /** The policy's name: console, status and HTTP use it. */
    public static final String NAME = "jobcap";
    /** The name of its reason code. */
    public static final String JOB_CAP_NAME = "JOB_CAP";

    private final long maxSlots;

    public JobCapPolicy(long maxSlots) {
        if (maxSlots < 1) {
            throw new IllegalArgumentException("jobcap: maxSlots is at least 1, got " + maxSlots);
        }
        this.maxSlots = maxSlots;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Verdict admit(UnitView unit, int wanted, EngineView view) {
        JobView job = unit.job();
        long held = held(job);
        long left = maxSlots - held;
        if (left >= wanted) {
            return Verdict.ALLOW;
        }
        Reason why = new Reason(JobCapProvider.JOB_CAP, "job " + job.id(), "holds " + held + " of its cap of " + maxSlots
                + " slots" + (left > 0 ? "; " + left + " more allowed of the " + wanted + " wanted" : ""), maxSlots, held);
        return left <= 0 ? Verdict.waitFor(why) : Verdict.allow((int) left, why);
    }

    /** The slots the job's units hold now. */
    static long held(JobView job) {
        long held = 0;
        for (UnitView u : job.units()) {
            held += u.granted();
        }
        return held;
    }

    long maxSlots() {
        return maxSlots;
    }

    /** The jobs holding their cap now, by id. */
    List<JobView> atCap(EngineView view) {
        List<JobView> out = new ArrayList<>();
        for (JobView j : view.jobs()) {
            if (held(j) >= maxSlots) {
                out.add(j);
            }
        }
        out.sort((a, b) -> a.id().compareTo(b.id()));
        return out;
    }

    @Override
    public Map<String, String> status() {
        return Map.of("maxSlots", Long.toString(maxSlots));
    }
}
