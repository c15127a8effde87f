package granary.policy.queues;

import java.io.StringReader;
import java.util.List;

import granary.api.event.Receipt;
import granary.api.model.UnitSpec;
import granary.api.spi.GroupView;
import granary.api.spi.Reason;
import granary.policy.fifo.FifoPolicy;
import granary.policy.queues.api.QueueTree;
import granary.policy.queues.api.QueueTreeCodec;
import granary.testkit.Clocks;
import granary.testkit.Clusters;
import granary.testkit.Jobs;
import granary.testkit.TestEngine;

/** The kit's strict test engine with FIFO and the queues policy selected, plus the queue tests' own questions. */
final class Bench extends TestEngine {

    final QueuesPolicy queues;

    Bench(QueueTree tree) {
        this(new QueuesPolicy(tree));
    }

    Bench(QueuesPolicy queues) {
        super(Clocks.manual(), List.of(FifoPolicy.NAME, QueuesPolicy.NAME), List.of(FifoPolicy.NAME), new FifoPolicy(),
                queues);
        this.queues = queues;
    }

    /** A tree in the queue file format. */
    static QueueTree tree(String json) {
        return QueueTreeCodec.read(new StringReader(json), "queues.json");
    }

    /** {@code count} nodes n0, n1, … in room r1. */
    Bench nodes(int count, long cpu, long mem) {
        nodes(Clusters.nodes("n", "r1", count, cpu, mem));
        return this;
    }

    Receipt submit(String job, String group, String user, UnitSpec... units) {
        return submit(Jobs.job(job).group(group).user(user).units(units).build());
    }

    Receipt submitGang(String job, String group, UnitSpec... units) {
        return submit(Jobs.job(job).group(group).gang().units(units).build());
    }

    Reason reason(String unit) {
        return unit(unit).waitReason();
    }

    /** The full name of the queue the job is in. */
    String group(String job) {
        return view().job(job).group();
    }

    GroupView groupView(String name) {
        return view().group(name);
    }

    /** Releases one slot of the unit on a node. */
    void release(String unit, String node) {
        release(unit, node, 1);
    }
}
