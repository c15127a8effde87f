package granary.policy.quota;

import java.io.StringReader;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import granary.api.model.JobSpec;
import granary.api.model.ManualClock;
import granary.api.model.NodeSpec;
import granary.api.event.Receipt;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.api.event.ClockTick;
import granary.api.event.GrantReleased;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.PolicyInstalled;
import granary.policy.quota.api.QuotaTable;
import granary.api.spi.UnitView;
import granary.policy.quota.api.QuotaTableCodec;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.policy.fifo.FifoPolicy;

/** A real engine in strict mode with FIFO and the quota policy, on a manual clock that starts at midnight UTC. */
final class QuotaBench {

    static final long MIDNIGHT = Instant.parse("2026-11-02T00:00:00Z").toEpochMilli();
    static final long HOUR = 3_600_000;

    final ManualClock clock = new ManualClock(MIDNIGHT);
    final Engine engine;
    final QuotaPolicy quota;

    QuotaBench(QuotaOptions options, QuotaTable table) {
        quota = new QuotaPolicy(options, table);
        engine = new Engine(clock, new EngineOptions(List.of("fifo", "quota"), List.of(), true));
        engine.handle(new PolicyInstalled(new FifoPolicy(), "test"));
        engine.handle(new PolicyInstalled(quota, "test"));
    }

    static QuotaTable table(String json, String workerSpans) {
        return QuotaTableCodec.read(new StringReader(json), "quota.json", QuotaTableCodec.workerSpans(workerSpans));
    }

    /** {@code count} nodes of {@code slots} one-core slots each. */
    QuotaBench nodes(int count, int slots) {
        for (int i = 0; i < count; i++) {
            engine.handle(new NodeAdded(new NodeSpec("n" + i, "r1", Resources.of(100L * slots, 100L * slots))));
        }
        return this;
    }

    Receipt handle(InputEvent e) {
        return engine.handle(e);
    }

    Receipt submit(String job, String group, int slots, UnitKind kind) {
        return handle(new JobSubmitted(new JobSpec(job, group, null, 0, false,
                List.of(UnitSpec.builder("u").slot(100, 100).desired(slots).kind(kind).build()))));
    }

    Receipt submit(String job, String group, int slots) {
        return submit(job, group, slots, UnitKind.OFFLINE);
    }

    /** Moves time to {@code hours} after midnight and ticks. */
    Receipt at(double hours) {
        clock.set(MIDNIGHT + (long) (hours * HOUR));
        return handle(new ClockTick());
    }

    UnitView unit(String job) {
        return engine.view().unit(new UnitId(job, "u"));
    }

    int granted(String job) {
        UnitView u = unit(job);
        return u == null ? 0 : u.granted();
    }

    long used(String group) {
        var g = engine.view().group(group);
        return g == null ? 0 : g.usedSlots();
    }

    /** Releases {@code slots} of a job's slots, node by node. */
    void release(String job, int slots) {
        UnitView u = unit(job);
        for (Map.Entry<String, Integer> e : Map.copyOf(u.allocations()).entrySet()) {
            if (slots == 0) {
                break;
            }
            int k = Math.min(slots, e.getValue());
            handle(new GrantReleased(u.id(), e.getKey(), k));
            slots -= k;
        }
    }
}
