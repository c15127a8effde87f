package granary.client;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The client's own record of its jobs and of each unit's current desired count: what a full request
 * says after a master restart. Not thread-safe; {@link JobMasterClient} copies it, changes the copy
 * and keeps the copy once the master applied the change.
 */
final class JobBook {

    private final Map<String, JobSpec> jobs = new LinkedHashMap<>();
    private final Map<UnitId, Integer> desired = new LinkedHashMap<>();
    /** Units kept off nodes since their submission (docs/agent.md, "Blacklisting a node for one job"). */
    private final Map<UnitId, Set<String>> avoided = new LinkedHashMap<>();

    JobBook copy() {
        JobBook c = new JobBook();
        c.jobs.putAll(jobs);
        c.desired.putAll(desired);
        c.avoided.putAll(avoided);
        return c;
    }

    void submit(JobSpec job) {
        cancel(job.id());
        jobs.put(job.id(), job);
        for (UnitSpec u : job.units()) {
            desired.put(new UnitId(job.id(), u.name()), u.desired());
        }
    }

    void desire(UnitId unit, int count) {
        if (!desired.containsKey(unit)) {
            throw new InvalidRequestException("unit " + unit, "unit", "is not a unit of a job this client submitted");
        }
        if (count < 0) {
            throw new InvalidRequestException("unit " + unit, "desired", "must not be negative, got " + count);
        }
        desired.put(unit, count);
    }

    /** {@code unit} is kept off {@code nodes} from now on (instead of the nodes before). */
    void avoid(UnitId unit, Set<String> nodes) {
        if (!desired.containsKey(unit)) {
            throw new InvalidRequestException("unit " + unit, "unit", "is not a unit of a job this client submitted");
        }
        avoided.put(unit, Set.copyOf(nodes));
    }

    void cancel(String jobId) {
        jobs.remove(jobId);
        desired.keySet().removeIf(u -> u.job().equals(jobId));
        avoided.keySet().removeIf(u -> u.job().equals(jobId));
    }

    /** A worker of {@code unit} ended: the master lowered the desired count by one. */
    void exited(UnitId unit) {
        desired.computeIfPresent(unit, (u, n) -> Math.max(0, n - 1));
    }

    boolean has(String jobId) {
        return jobs.containsKey(jobId);
    }

    /** The desired count of {@code unit}, or -1 if it is not a unit of this book. */
    int desired(UnitId unit) {
        return desired.getOrDefault(unit, -1);
    }

    /** Every job with each unit's current desired count and blacklist, for a full request. */
    List<JobSpec> jobs() {
        List<JobSpec> out = new ArrayList<>();
        for (JobSpec j : jobs.values()) {
            List<UnitSpec> units = new ArrayList<>();
            for (UnitSpec u : j.units()) {
                UnitId id = new UnitId(j.id(), u.name());
                UnitSpec now = u.withDesired(desired.get(id));
                units.add(avoided.containsKey(id) ? now.withBlacklist(avoided.get(id)) : now);
            }
            out.add(new JobSpec(j.id(), j.group(), j.user(), j.productionLevel(), j.gang(), units));
        }
        return out;
    }
}
