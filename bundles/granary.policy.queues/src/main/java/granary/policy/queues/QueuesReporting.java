package granary.policy.queues;

import java.util.ArrayList;
import java.util.List;

import granary.api.report.Cell;
import granary.api.report.Report;
import granary.api.report.Row;
import granary.api.report.Section;
import granary.api.spi.CommandSpec;
import granary.api.spi.Invocation;
import granary.api.spi.PolicyDeclaration;
import granary.codec.DocumentFile;
import granary.policy.queues.api.QueueTreeCodec;

/**
 * What the queues policy shows operators and lets them do, as part of its declaration: the report
 * {@code queues} (sampled by the simulator: its {@code queues} table becomes {@code queues.csv}) and
 * the command {@code queues-load <file>}.
 */
final class QueuesReporting {

    private QueuesReporting() {
    }

    static void declare(PolicyDeclaration.Builder<QueuesPolicy> b) {
        b.sampledReport("queues", "the queue tree: every queue by full path with its capacity, usage and jobs",
                        (p, v) -> queues(p.queues(v)))
                .command(CommandSpec.of("queues-load", "validate a queue tree file (JSON) and apply it between two decisions; "
                        + "on error print every problem and keep the tree in force",
                        List.of(CommandSpec.required("file", "path of the queue tree (JSON)")),
                        args -> Invocation.reconfigure(DocumentFile.read(args.get(0), QueueTreeCodec::read))));
    }

    /** Every queue by full path, nested by depth. */
    static Report queues(List<QueueRow> queues) {
        List<Row> rows = new ArrayList<>();
        for (QueueRow q : queues) {
            Cell running = Cell.of("running", q.runningJobs())
                    .shownAs(q.runningJobs() + (q.maxRunningJobs() > 0 ? "/" + q.maxRunningJobs() : ""));
            rows.add(Row.nested(q.depth(), Cell.bare("queue", q.path()), Cell.of("guaranteed", q.guaranteed()),
                    Cell.of("max", q.maximum()), Cell.of("used", q.used()), running, Cell.of("jobs", q.jobs()),
                    Cell.of("waiting_slots", q.waitingSlots())));
        }
        return Report.of(Section.table("queues", rows, "no queues"));
    }
}
