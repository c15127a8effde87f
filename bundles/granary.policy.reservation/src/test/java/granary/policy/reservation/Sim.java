package granary.policy.reservation;

import java.util.List;

import granary.api.model.JobSpec;
import granary.api.model.UnitSpec;
import granary.api.spi.Policy;
import granary.testkit.Jobs;
import granary.testkit.TimedRun;

/** The kit's timed run (arrivals, slots that run for their job's duration, a tick a second) plus the reservation report. */
final class Sim extends TimedRun {

    Sim(List<String> selection, Policy... policies) {
        super(selection, policies);
    }

    @Override
    public Sim nodes(String prefix, String room, int count, long cpu, long mem) {
        super.nodes(prefix, room, count, cpu, mem);
        return this;
    }

    ReservationReport report() {
        Policy p = view().policy(ReservationPolicy.NAME);
        return p == null ? null : ((ReservationPolicy) p).reservation(view());
    }

    // ---- shorthands of these tests: slots of 100 MiB, jobs of the default group ----

    static UnitSpec.Builder unit(String name, long cpu, int desired) {
        return Jobs.unit(name, cpu, 100, desired);
    }

    static JobSpec job(String id, UnitSpec u) {
        return Jobs.job(id, null, u);
    }

    static JobSpec gangJob(String id, UnitSpec... units) {
        return Jobs.gang(id, units);
    }
}
