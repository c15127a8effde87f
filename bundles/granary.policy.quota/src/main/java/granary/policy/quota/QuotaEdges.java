package granary.policy.quota;

import java.io.StringReader;
import java.util.List;
import java.util.Map;

import granary.api.model.InvalidRequestException;
import granary.api.spi.Invocation;
import granary.api.spi.MetricSpec;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.Reconfigurable;
import granary.api.spi.ResourceSpec;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.QuotaTableCodec;
import granary.policy.quota.api.WorkerSpans;

/**
 * What the quota policy offers the edges, as part of its declaration: its why-not reason codes, the
 * metrics read from its {@code quota} report (docs/operations.md, "Metrics"), and its HTTP resources
 * (docs/api.md, "Resources policies declare"): the table in force {@code GET /quota}, its load
 * {@code PUT /quota} through the same reader and reconfigure as the {@code quota-load} command, and
 * {@code GET /quota/state}.
 */
final class QuotaEdges {

    /** The header that carries the WorkerSpans of the table in force. */
    static final String WORKER_SPANS_HEADER = "Granary-Worker-Spans";

    private QuotaEdges() {
    }

    static void declare(PolicyDeclaration.Builder<QuotaPolicy> b) {
        b.reason(QuotaReasons.QUOTA).reason(QuotaReasons.UNFUNDED).reason(QuotaReasons.DRAWBACK)
                .reason(QuotaReasons.LOOKAHEAD).reason(QuotaReasons.LOCKED)
                .metric(MetricSpec.number("granary_group_preempted_slots",
                        "Slots preempted from a group since its policy instance started, from the quota report.",
                        "quota", "groups", List.of("group"), "preempted_from"))
                .metric(MetricSpec.number("granary_group_preempted_work_slot_seconds",
                        "Work lost to preemption: the slot-seconds the slots preempted from a group had run, since its policy "
                                + "instance started (its rate over granary_group_used_slots is the share of the group's work lost).",
                        "quota", "groups", List.of("group"), "preempted_work_slot_seconds"))
                .metric(MetricSpec.amount("granary_group_quota_min",
                        "A group's guarantee in force, from the quota report of each policy in effect that declares one "
                                + "(slots, or resources in base units).", "quota", "groups", List.of("group"), "min"))
                .metric(MetricSpec.amount("granary_group_quota_max",
                        "A group's limit in force, from the quota report of each policy in effect that declares one.",
                        "quota", "groups", List.of("group"), "max"))
                .resource(ResourceSpec.read("/quota", "getQuota", "The quota table in force, in its JSON format"
                        + " (docs/formats.md, \"Quota table\"); its revision in the ETag header", "quota table",
                        QuotaPolicy.class, (p, v) -> document(p)))
                .resource(ResourceSpec.write("/quota", "loadQuota", "Load a quota table: validated, diffed against the"
                                + " table in force, applied between two decisions",
                        "quota table in its JSON format (docs/formats.md, \"Quota table\"); If-Match: a revision, to refuse a stale edit",
                        List.of(ResourceSpec.param("workerSpans", "string", "workers per slice, e.g. default:5000,0-9:15000")),
                        QuotaEdges::load))
                .resource(ResourceSpec.reports("/quota/state", "getQuotaState", "The quota policy's state: the slice in"
                        + " force, every group's min, max, used and state, and billing", List.of("quota", "billing"))
                        .withRevisionOf("/quota"));
    }

    /** The table in force with its WorkerSpans, or null while there is none. */
    private static ResourceSpec.Document document(Reconfigurable p) {
        return p.settings() instanceof QuotaTable t ? document(t) : null;
    }

    private static ResourceSpec.Document document(QuotaTable t) {
        WorkerSpans spans = t.workerSpans();
        return new ResourceSpec.Document(QuotaTableCodec.write(t),
                spans == null ? Map.of() : Map.of(WORKER_SPANS_HEADER, spans.toString()));
    }

    /** The HTTP load: the body read as {@code quota-load} reads a file, the same reconfigure. */
    private static ResourceSpec.Loaded load(String body, String source, Map<String, String> query) {
        String spans = query.get("workerSpans");
        try {
            QuotaTableCodec.workerSpans(spans);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequestException("parameter workerSpans", "workerSpans", e.getMessage());
        }
        Invocation load = QuotaReporting.load(new StringReader(body), source, spans);
        return new ResourceSpec.Loaded(load, document((QuotaTable) load.settings()), Map.of());
    }
}
