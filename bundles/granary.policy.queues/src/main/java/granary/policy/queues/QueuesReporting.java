package granary.policy.queues;

import java.io.StringReader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import granary.api.report.Cell;
import granary.api.report.Report;
import granary.api.report.Row;
import granary.api.report.Section;
import granary.api.spi.CommandSpec;
import granary.api.spi.Invocation;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.ResourceSpec;
import granary.codec.DocumentFile;
import granary.codec.json.JsonArray;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPosition;
import granary.codec.json.JsonValue;
import granary.codec.json.JsonWriter;
import granary.policy.queues.api.QueueTree;
import granary.policy.queues.api.QueueTreeCodec;

/**
 * What the queues policy shows operators and lets them do, as part of its declaration: the report
 * {@code queues} (sampled by the simulator: its {@code queues} table becomes {@code queues.csv}), the
 * command {@code queues-load <file>}, its reason codes, and its HTTP resources: the tree's leaves added
 * to {@code GET /queues} and the tree's load {@code PUT /queues} (docs/api.md, "Resources policies declare").
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
                        args -> Invocation.reconfigure(DocumentFile.read(args.get(0), QueueTreeCodec::read))))
                .reason(QueueReasons.QUOTA)
                .reason(QueueReasons.MAX_RUNNING)
                .resource(ResourceSpec.fields("/queues", "the queue tree's leaves when one is in force: treeLeaves",
                        QueuesPolicy.class, (p, v) -> p.settings() instanceof QueueTree t ? leaves("treeLeaves", t) : null))
                .resource(ResourceSpec.write("/queues", "loadQueues", "Load a queue tree into the queues policy (validated first)",
                        "queue tree", List.of(), QueuesReporting::load));
    }

    /**
     * The HTTP load of a tree: the same reader as {@code queues-load} reads a file with, the same
     * reconfigure; the answer lists the tree's leaves.
     */
    private static ResourceSpec.Loaded load(String body, String source, Map<String, String> query) {
        QueueTree tree = QueueTreeCodec.read(new StringReader(body), source);
        return new ResourceSpec.Loaded(Invocation.reconfigure(tree), null, Map.of("leaves", tree.leaves()));
    }

    private static ResourceSpec.Document leaves(String field, QueueTree t) {
        List<JsonValue> items = new ArrayList<>();
        t.leaves().forEach(l -> items.add(JsonValue.of(l)));
        return ResourceSpec.Document.of(JsonWriter.write(JsonObject.builder()
                .put(field, new JsonArray(items, JsonPosition.NONE)).build()));
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
