package granary.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import granary.api.model.JobSpec;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;

/**
 * Synthetic jobs from a seeded random source: one or two units of 1 to {@code maxSlotsPerUnit}
 * slots of 1, 2, 4 or 8 cores (with 2 or 4 GiB per core, capped at the node size), priority 0 to
 * 3, spread over the configured groups. Jobs of a group named {@code *service*} are ONLINE, the
 * others OFFLINE. Not thread-safe: one caller at a time.
 */
public final class JobGenerator {

    private static final long[] CORES = {1, 2, 4, 8};
    private static final String[] UNIT_NAMES = {"main", "side"};

    private final DemoSettings settings;
    private final Random random;
    private long sequence;

    public JobGenerator(DemoSettings settings) {
        this.settings = settings;
        this.random = new Random(settings.seed());
    }

    /** The next job; its id is {@code <prefix>-<n>}, n counting from 1. */
    public JobSpec next() {
        String id = settings.jobPrefix() + "-" + ++sequence;
        String group = settings.groups().get(random.nextInt(settings.groups().size()));
        UnitKind kind = group.contains("service") ? UnitKind.ONLINE : UnitKind.OFFLINE;
        int unitCount = 1 + random.nextInt(UNIT_NAMES.length);
        List<UnitSpec> units = new ArrayList<>(unitCount);
        for (int i = 0; i < unitCount; i++) {
            units.add(unit(UNIT_NAMES[i], kind));
        }
        return new JobSpec(id, group, "demo", 0, false, units);
    }

    private UnitSpec unit(String name, UnitKind kind) {
        long cores = CORES[random.nextInt(CORES.length)];
        long cpu = Math.min(cores * 100, settings.nodeCpu());
        long mem = Math.min(cores * (random.nextBoolean() ? 2048 : 4096), settings.nodeMemMb());
        return UnitSpec.builder(name)
                .slot(cpu, mem)
                .desired(1 + random.nextInt(settings.maxSlotsPerUnit()))
                .priority(random.nextInt(4))
                .kind(kind)
                .build();
    }
}
