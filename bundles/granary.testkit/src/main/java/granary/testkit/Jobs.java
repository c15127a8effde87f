package granary.testkit;

import java.util.ArrayList;
import java.util.List;

import granary.api.model.JobSpec;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;

/** Builders for jobs and their units: slots, counts, priority, group (queue), user, gangs. */
public final class Jobs {

    private Jobs() {
    }

    /** A unit builder of {@code desired} slots of {@code cpu} and {@code mem} MiB each. */
    public static UnitSpec.Builder unit(String name, long cpu, long mem, int desired) {
        return UnitSpec.builder(name).slot(cpu, mem).desired(desired);
    }

    /** An all-or-nothing unit (a gang member). */
    public static UnitSpec aon(String name, long cpu, long mem, int desired) {
        return unit(name, cpu, mem, desired).allOrNothing(true).build();
    }

    /** One unit "u" of {@code desired} one-core slots (100 cpu, 100 MiB). */
    public static UnitSpec slots(int desired) {
        return unit("u", 100, 100, desired).build();
    }

    /** One unit "u" of {@code desired} one-core slots of the given kind. */
    public static UnitSpec slots(int desired, UnitKind kind) {
        return unit("u", 100, 100, desired).kind(kind).build();
    }

    /** A job in {@code group} (null: the default group). */
    public static JobSpec job(String id, String group, UnitSpec... units) {
        return JobSpec.of(id, group, units);
    }

    /** A job whose units form one gang (placed whole or not at all). */
    public static JobSpec gang(String id, UnitSpec... units) {
        return job(id).gang().units(units).build();
    }

    /** A job builder. */
    public static JobBuilder job(String id) {
        return new JobBuilder(id);
    }

    /** A job under construction. */
    public static final class JobBuilder {
        private final String id;
        private String group;
        private String user;
        private int productionLevel;
        private boolean gang;
        private final List<UnitSpec> units = new ArrayList<>();

        private JobBuilder(String id) {
            this.id = id;
        }

        /** The group (queue) it names. */
        public JobBuilder group(String g) {
            this.group = g;
            return this;
        }

        public JobBuilder user(String u) {
            this.user = u;
            return this;
        }

        public JobBuilder productionLevel(int level) {
            this.productionLevel = level;
            return this;
        }

        /** Its units form one gang. */
        public JobBuilder gang() {
            this.gang = true;
            return this;
        }

        public JobBuilder units(UnitSpec... us) {
            units.addAll(List.of(us));
            return this;
        }

        public JobBuilder unit(UnitSpec u) {
            units.add(u);
            return this;
        }

        public JobSpec build() {
            return new JobSpec(id, group, user, productionLevel, gang, units);
        }
    }
}
