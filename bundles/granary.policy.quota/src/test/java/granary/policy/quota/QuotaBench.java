package granary.policy.quota;

import java.io.StringReader;
import java.util.List;

import granary.api.event.Receipt;
import granary.api.model.UnitKind;
import granary.api.spi.UnitView;
import granary.policy.fifo.FifoPolicy;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.QuotaTableCodec;
import granary.testkit.Clocks;
import granary.testkit.Clusters;
import granary.testkit.Jobs;
import granary.testkit.TestEngine;

/**
 * The kit's strict test engine with FIFO and the quota policy, on a clock that starts at midnight UTC.
 * Every job here has one unit "u", so units are named by their job: {@code granted("j")} is j/u's.
 */
final class QuotaBench extends TestEngine {

    final QuotaPolicy quota;

    QuotaBench(QuotaOptions options, QuotaTable table) {
        this(new QuotaPolicy(options, table));
    }

    private QuotaBench(QuotaPolicy quota) {
        super(Clocks.midnight(), List.of("fifo", "quota"), List.of(), new FifoPolicy(), quota);
        this.quota = quota;
    }

    static QuotaTable table(String json, String workerSpans) {
        return QuotaTableCodec.read(new StringReader(json), "quota.json", QuotaTableCodec.workerSpans(workerSpans));
    }

    /** {@code count} nodes of {@code slots} one-core slots each. */
    QuotaBench nodes(int count, int slots) {
        nodes(Clusters.slotNodes(count, slots));
        return this;
    }

    Receipt submit(String job, String group, int slots, UnitKind kind) {
        return submit(Jobs.job(job, group, Jobs.slots(slots, kind)));
    }

    Receipt submit(String job, String group, int slots) {
        return submit(job, group, slots, UnitKind.OFFLINE);
    }

    /** Moves time to {@code hours} after midnight and ticks. */
    Receipt at(double hours) {
        clock.set(Clocks.MIDNIGHT + (long) (hours * Clocks.HOUR));
        return tick();
    }

    /** The job's unit "u". */
    @Override
    public UnitView unit(String job) {
        return super.unit(job + "/u");
    }

    /** Slots the job's unit "u" holds. */
    @Override
    public int granted(String job) {
        return super.granted(job + "/u");
    }

    /** Releases {@code slots} of a job's slots, node by node. */
    void release(String job, int slots) {
        releaseSlots(job + "/u", slots);
    }
}
