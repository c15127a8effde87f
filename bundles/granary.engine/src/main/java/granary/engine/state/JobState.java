package granary.engine.state;

import java.util.ArrayList;
import java.util.List;

import granary.api.model.JobSpec;
import granary.api.model.UnitSpec;
import granary.api.spi.JobView;

/** The engine's record of one job: it owns the job's units. */
public final class JobState implements JobView {

    /** The job record of an engine unit (every {@link UnitState} is made with its {@code JobState}). */
    public static JobState of(UnitState u) {
        return (JobState) u.job();
    }

    private final JobSpec submitted;
    private String group;
    private final long submitTime;
    private final List<UnitState> units = new ArrayList<>();
    int grantedSlots;
    /** Its place in its group's running jobs: larger for a job that started holding later. */
    long runningSeq;
    private final long requestedSlots;
    /** The spec's gang flag, kept here: unit orders read it per unit (one object less to reach on a swap). */
    private final boolean gang;

    public JobState(JobSpec spec, long now) {
        this.submitted = spec;
        this.group = spec.group();
        this.submitTime = now;
        this.requestedSlots = spec.units().stream().mapToLong(UnitSpec::desired).sum();
        this.gang = spec.gang();
    }

    @Override
    public long requestedSlots() {
        return requestedSlots;
    }

    @Override
    public String id() {
        return submitted.id();
    }

    @Override
    public String group() {
        return group;
    }

    void group(String g) {
        group = g;
    }

    @Override
    public String user() {
        return submitted.user();
    }

    @Override
    public int productionLevel() {
        return submitted.productionLevel();
    }

    @Override
    public boolean gang() {
        return gang;
    }

    @Override
    public long submitTime() {
        return submitTime;
    }

    @Override
    public List<UnitState> units() {
        return units;
    }

    public UnitState unit(String name) {
        for (UnitState u : units) {
            if (u.spec().name().equals(name)) {
                return u;
            }
        }
        return null;
    }

    @Override
    public JobSpec spec() {
        List<UnitSpec> specs = new ArrayList<>(units.size());
        for (UnitState u : units) {
            specs.add(u.spec());
        }
        return new JobSpec(submitted.id(), group, submitted.user(), submitted.productionLevel(), submitted.gang(),
                specs);
    }

    /** True when no unit wants or holds anything: the job is finished. */
    public boolean finished() {
        for (UnitState u : units) {
            if (u.live() && u.desired() > 0) {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return id();
    }
}
