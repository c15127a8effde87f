package granary.sim.workload;

import java.util.List;

import granary.api.model.JobSpec;
import granary.api.model.UnitSpec;

/**
 * A replayed job: its identity and group as the engine gets them, and its units with their arrival
 * times and run times. The job arrives with its earliest unit.
 *
 * @param origin where it came from, e.g. {@code batch_task.csv:17}, for messages
 */
public record SimJob(String id, String group, String user, int productionLevel, boolean gang, List<SimUnit> units,
                     String origin) {

    public SimJob {
        units = List.copyOf(units);
        if (units.isEmpty()) {
            throw new IllegalArgumentException("job " + id + " has no units");
        }
    }

    /** When the first unit is requested. */
    public long arrivalMs() {
        long t = Long.MAX_VALUE;
        for (SimUnit u : units) {
            t = Math.min(t, u.arrivalMs());
        }
        return t;
    }

    /** Slots asked for in all. */
    public long slots() {
        long n = 0;
        for (SimUnit u : units) {
            n += u.spec().desired();
        }
        return n;
    }

    /** The job as submitted with the given units (the first arrivals, or later ones after the engine forgot it). */
    public JobSpec spec(List<UnitSpec> with) {
        return new JobSpec(id, group, user, productionLevel, gang, with);
    }

    public SimUnit unit(String name) {
        for (SimUnit u : units) {
            if (u.name().equals(name)) {
                return u;
            }
        }
        return null;
    }
}
