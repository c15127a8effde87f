package granary.api.model;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A job as its job master submits it (docs/model.md, "Jobs and schedule units").
 *
 * @param id              unique job id
 * @param group           the quota group / queue the job's units wait in; a full path such as
 *                        {@code root.a.p0} or a name the queue layer resolves; default {@code default}
 * @param user            who submitted it (per-user limits); default {@code anonymous}
 * @param productionLevel baseline level, 0 = none; a higher level outranks ordinary priority
 * @param gang            all units of the job form one all-or-nothing gang (docs/scheduling.md, "Gangs")
 * @param units           at least one unit, names unique
 */
public record JobSpec(String id, String group, String user, int productionLevel, boolean gang, List<UnitSpec> units) {

    /** The group of a job that names none. */
    public static final String DEFAULT_GROUP = "default";

    public JobSpec {
        group = group == null || group.isEmpty() ? DEFAULT_GROUP : group;
        user = user == null || user.isEmpty() ? "anonymous" : user;
        units = units == null ? List.of() : List.copyOf(units);
        Checks c = new Checks("job " + id).name("id", id).name("group", group).name("user", user);
        c.atLeast("productionLevel", productionLevel, 0);
        c.check(!units.isEmpty(), "units", "a job needs at least one unit");
        Set<String> names = new HashSet<>();
        for (int i = 0; i < units.size(); i++) {
            UnitSpec u = units.get(i);
            c.check(u != null, "units[" + i + "]", "is null");
            if (u != null && !names.add(u.name())) {
                c.add(Problem.of("job " + id, "units[" + i + "].name", "unit name '" + u.name() + "' is used twice"));
            }
        }
        c.done();
    }

    public static JobSpec of(String id, String group, UnitSpec... units) {
        return new JobSpec(id, group, null, 0, false, List.of(units));
    }

    public UnitSpec unit(String name) {
        for (UnitSpec u : units) {
            if (u.name().equals(name)) {
                return u;
            }
        }
        return null;
    }

    /** The job with another group (used when a short queue name is resolved to its full path). */
    public JobSpec withGroup(String newGroup) {
        return new JobSpec(id, newGroup, user, productionLevel, gang, units);
    }
}
