package granary.policy.quota;

import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.format.ResolverStyle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;

import granary.api.model.Text;
import granary.api.report.Cell;
import granary.api.report.Report;
import granary.api.report.Row;
import granary.api.report.Section;
import granary.api.spi.CommandSpec;
import granary.api.spi.EngineView;
import granary.api.spi.Invocation;
import granary.api.spi.PolicyDeclaration;
import granary.codec.DocumentFile;
import granary.policy.quota.api.Quota;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.QuotaTableCodec;

/**
 * What the quota policy shows operators and lets them do, as part of its declaration: the reports
 * {@code quota} (sampled by the simulator: its {@code groups} table becomes {@code groups.csv}) and
 * {@code billing [day]}, and the command {@code quota-load <file> [workerSpans]}.
 */
final class QuotaReporting {

    private QuotaReporting() {
    }

    static void declare(PolicyDeclaration.Builder<QuotaPolicy> b) {
        b.sampledReport("quota", "the quota slice in force (emergent job, claimed nodes, lookahead), then one line per group: "
                        + "name, id, min, max, used, state, slots preempted from it and for it, "
                                + "slot-seconds the slots preempted from it had run",
                        (p, v) -> quota(p.quota(v)))
                .report("billing", "billing of every day kept, or of one day: per day, slice and group, usage integrated over time",
                        List.of(CommandSpec.optional("day", "day, yyyy-MM-dd")), QuotaReporting::billingOf)
                .command(CommandSpec.of("quota-load", "validate a quota table file (JSON) and apply it between two decisions; "
                        + "on error print every problem and keep the table in force",
                        List.of(CommandSpec.required("file", "path of the quota table (JSON)"),
                                CommandSpec.optional("workerSpans", "workers per slice, e.g. default:5000,0-9:15000")),
                        QuotaReporting::load));
    }

    /** The slice line, then the groups table. */
    static Report quota(QuotaReport r) {
        List<Row> rows = new ArrayList<>();
        for (GroupQuotaRow g : r.groups()) {
            rows.add(Row.of(Cell.bare("group", g.group()), Cell.of("id", g.groupId()), Cell.of("min", value(g.min())),
                    Cell.of("max", value(g.max())), Cell.of("used", value(g.used())), Cell.bare("state", g.state().name()),
                    Cell.of("preempted_from", g.preemptedFrom()), Cell.of("preempted_for", g.preemptedFor()),
                    seconds("preempted_work_slot_seconds", g.preemptedWorkSeconds())));
        }
        return Report.of(Section.line("slice", Cell.of("slice", r.slice()), Cell.of("workers", r.workers()),
                        Cell.of("preemption", r.preemption()).shownAs(r.preemption() ? "on" : "off"),
                        Cell.of("emergent", r.emergent()), Cell.of("claimed_nodes", r.claimedNodes()),
                        Cell.of("lookahead_until", r.lookaheadBoundary())),
                Section.table("groups", rows, null));
    }

    /** A number of workers, or a resource vector: values JSON and CSV understand. */
    private static Object value(Quota q) {
        return q.isWorkers() ? (Object) q.workers() : q.resources();
    }

    /** A day as billing names it; strict, so that a 30th of February is refused, not resolved. */
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("uuuu-MM-dd")
            .withResolverStyle(ResolverStyle.STRICT);

    private static BiFunction<QuotaPolicy, EngineView, Report> billingOf(List<String> args) {
        String day = args.isEmpty() ? null : args.get(0);
        if (day != null && !day.matches("\\d{4}-\\d{2}-\\d{2}")) {
            throw new IllegalArgumentException("billing: day '" + Text.escape(day) + "' is not yyyy-MM-dd");
        }
        if (day != null) {
            try {
                // strict: 2026-02-30 and 2026-13-01 are not days, not days without billing
                LocalDate.parse(day, DAY);
            } catch (DateTimeParseException e) {
                throw new IllegalArgumentException("billing: day '" + day + "' is not a day of the calendar"
                        + " (yyyy-MM-dd, month 01-12, day within the month)");
            }
        }
        return (p, v) -> billing(p.billing(day, v));
    }

    static Report billing(List<BillingRow> billing) {
        List<Row> rows = new ArrayList<>();
        for (BillingRow b : billing) {
            rows.add(Row.of(Cell.bare("day", b.day()), Cell.of("slice", b.slice()), Cell.bare("group", b.group()),
                    seconds("slot_seconds", b.slotSeconds()), seconds("cpu_core_seconds", b.cpuCoreSeconds()),
                    seconds("mem_gib_seconds", b.memGibSeconds())));
        }
        return Report.of(Section.table("billing", rows, "no billing yet"));
    }

    private static Cell seconds(String key, double value) {
        return Cell.of(key, value).shownAs(String.format(Locale.ROOT, "%.0f", value));
    }

    private static Invocation load(List<String> args) {
        String spans = args.size() > 1 ? args.get(1) : null;
        QuotaTable table = DocumentFile.read(args.get(0), (in, source) -> QuotaTableCodec.read(in, source,
                QuotaTableCodec.workerSpans(spans)));
        return Invocation.reconfigure(table);
    }
}
