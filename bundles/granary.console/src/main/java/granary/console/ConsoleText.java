package granary.console;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import granary.api.spi.EngineStatus;
import granary.api.spi.PolicyInfo;
import granary.api.model.Resources;
import granary.policy.queues.api.QueueRow;
import granary.policy.quota.api.BillingRow;
import granary.policy.quota.api.GroupQuotaRow;
import granary.policy.quota.api.QuotaReport;
import granary.policy.reservation.api.ReservationReport;

/** Formatting of the console's output: pure functions from DTOs to text, one line per item. */
final class ConsoleText {

    private ConsoleText() {
    }

    /** {@code <name> <points> <bundle> <version>} and {@code active} on the active ones, columns aligned. */
    static String policies(List<PolicyInfo> policies) {
        List<String[]> rows = new ArrayList<>();
        for (PolicyInfo p : policies) {
            String origin = p.origin();
            int space = origin.indexOf(' ');
            String bundle = space < 0 ? origin : origin.substring(0, space);
            String version = space < 0 ? "-" : origin.substring(space + 1).replace("(", "").replace(")", "");
            rows.add(new String[] {p.name(), String.join(",", p.points()), bundle, version, p.active() ? "active" : ""});
        }
        return table(rows);
    }

    /** {@code key=value} lines. */
    static String status(EngineStatus s) {
        StringBuilder sb = new StringBuilder();
        line(sb, "time", Long.toString(s.now()));
        line(sb, "nodes", Integer.toString(s.nodes()));
        line(sb, "capacity", s.capacity().toString());
        line(sb, "free", s.free().toString());
        line(sb, "used_share", String.format(Locale.ROOT, "%.3f",
                s.capacity().minus(s.free()).dominantShare(s.capacity())));
        line(sb, "jobs", Integer.toString(s.jobs()));
        line(sb, "waiting_units", Integer.toString(s.waitingUnits()));
        line(sb, "waiting_slots", Long.toString(s.waitingSlots()));
        line(sb, "granted_slots", Long.toString(s.grantedSlots()));
        line(sb, "decisions", Long.toString(s.decisions()));
        for (Map.Entry<String, String> e : new TreeMap<>(s.policies()).entrySet()) {
            line(sb, "policy." + e.getKey(), e.getValue());
        }
        line(sb, "health", s.health());
        for (int i = 0; i < s.held().size(); i++) {
            line(sb, "held." + (i + 1), granary.api.model.Text.escape(s.held().get(i)));
        }
        for (Map.Entry<String, String> e : new TreeMap<>(s.problems()).entrySet()) {
            line(sb, "problem." + e.getKey(), granary.api.model.Text.escape(e.getValue()));
        }
        return sb.toString().stripTrailing();
    }

    static String nodes(List<Rows.NodeRow> nodes) {
        List<String[]> rows = new ArrayList<>();
        for (Rows.NodeRow n : nodes) {
            rows.add(new String[] {n.name(), "room=" + n.room(), "capacity=" + n.capacity(), "free=" + n.free(),
                    "units=" + n.units(), n.labels().isEmpty() ? "" : "labels=" + n.labels(),
                    n.blacklisted() ? "blacklisted" : ""});
        }
        return rows.isEmpty() ? "no nodes" : table(rows);
    }

    static String jobs(List<Rows.JobRow> jobs) {
        if (jobs.isEmpty()) {
            return "no jobs";
        }
        StringBuilder sb = new StringBuilder();
        for (Rows.JobRow j : jobs) {
            sb.append(j.id()).append(" group=").append(j.group()).append(" user=").append(j.user())
                    .append(" granted=").append(j.granted()).append('/').append(j.desired()).append('\n');
            for (Rows.UnitRow u : j.units()) {
                sb.append("  ").append(u.name()).append(" granted=").append(u.granted()).append('/').append(u.desired())
                        .append(" priority=").append(u.priority()).append(' ').append(u.kind());
                if (u.waitReason() != null && u.granted() < u.desired()) {
                    sb.append(" waiting: ").append(u.waitReason());
                }
                sb.append('\n');
            }
        }
        return sb.toString().stripTrailing();
    }

    /** The slice line, then one line per group: name, id, min, max, used, state. */
    static String quota(QuotaReport r) {
        StringBuilder sb = new StringBuilder();
        sb.append("slice=").append(r.slice()).append(" workers=").append(r.workers() == null ? "-" : r.workers())
                .append(" preemption=").append(r.preemption() ? "on" : "off")
                .append(" emergent=").append(r.emergent() == null ? "-" : r.emergent()).append('\n');
        List<String[]> rows = new ArrayList<>();
        for (GroupQuotaRow g : r.groups()) {
            rows.add(new String[] {g.group(), "id=" + g.groupId(), "min=" + g.min(), "max=" + g.max(), "used=" + g.used(),
                    g.state().name()});
        }
        return (sb + table(rows)).stripTrailing();
    }

    static String billing(List<BillingRow> rows) {
        if (rows.isEmpty()) {
            return "no billing yet";
        }
        List<String[]> out = new ArrayList<>();
        for (BillingRow b : rows) {
            out.add(new String[] {b.day(), "slice=" + b.slice(), b.group(),
                    String.format(Locale.ROOT, "slot_seconds=%.0f", b.slotSeconds()),
                    String.format(Locale.ROOT, "cpu_core_seconds=%.0f", b.cpuCoreSeconds()),
                    String.format(Locale.ROOT, "mem_gib_seconds=%.0f", b.memGibSeconds())});
        }
        return table(out);
    }

    /** Every queue by full path, indented by depth. */
    static String queues(List<QueueRow> queues) {
        List<String[]> rows = new ArrayList<>();
        for (QueueRow q : queues) {
            rows.add(new String[] {"  ".repeat(q.depth()) + q.path(), "guaranteed=" + q.guaranteed(), "max=" + q.maximum(),
                    "used=" + q.used(), "running=" + q.runningJobs() + (q.maxRunningJobs() > 0 ? "/" + q.maxRunningJobs() : ""),
                    "jobs=" + q.jobs(), "waiting_slots=" + q.waitingSlots()});
        }
        return rows.isEmpty() ? "no queues" : table(rows);
    }

    /**
     * The reservation in force as {@code key=value} lines: target, waited, locked_nodes (with the
     * count planned), locked_capacity, needed, progress, expires_in; {@code no reservation} when none.
     */
    static String reservations(ReservationReport r) {
        if (r.target() == null) {
            return "no reservation";
        }
        StringBuilder sb = new StringBuilder();
        line(sb, "target", r.target());
        line(sb, "waited", seconds(r.waitedMillis()));
        line(sb, "locked_nodes", (r.lockedNodes().isEmpty() ? "-" : String.join(",", r.lockedNodes()))
                + " (" + r.lockedNodes().size() + " of " + r.plannedNodes() + " planned)");
        line(sb, "locked_capacity", r.lockedCapacity().toString());
        line(sb, "needed", r.needed().toString());
        line(sb, "progress", progress(r.lockedCapacity(), r.needed()));
        line(sb, "expires_in", r.expiresInMillis() < 0 ? "never" : seconds(r.expiresInMillis()));
        return sb.toString().stripTrailing();
    }

    /**
     * How much of the need the locked capacity covers, in the resource where it covers least:
     * {@code 57% (locked cpu 400 of 700 needed)}; 100% once every resource is covered.
     */
    static String progress(Resources locked, Resources needed) {
        String worst = null;
        double share = 1;
        List<String> names = new ArrayList<>(List.of("cpu", "mem"));
        names.addAll(needed.extended().keySet());
        for (String r : names) {
            long need = needed.get(r);
            if (need > 0) {
                double s = Math.min(1, (double) locked.get(r) / need);
                if (worst == null || s < share) {
                    worst = r;
                    share = s;
                }
            }
        }
        if (worst == null) {
            return "100%";
        }
        return (int) Math.floor(share * 100) + "% (locked " + worst + " " + locked.get(worst) + " of " + needed.get(worst)
                + " needed)";
    }

    private static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.1fs", millis / 1000.0);
    }

    private static void line(StringBuilder sb, String key, String value) {
        sb.append(key).append('=').append(value).append('\n');
    }

    /** Left-aligned columns separated by two spaces; trailing blanks trimmed. */
    static String table(List<String[]> rows) {
        int cols = rows.stream().mapToInt(r -> r.length).max().orElse(0);
        int[] width = new int[cols];
        for (String[] r : rows) {
            for (int i = 0; i < r.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        StringBuilder sb = new StringBuilder();
        for (String[] r : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < r.length; i++) {
                if (i > 0) {
                    line.append("  ");
                }
                line.append(i == r.length - 1 ? r[i] : pad(r[i], width[i]));
            }
            sb.append(line.toString().stripTrailing()).append('\n');
        }
        return sb.toString().stripTrailing();
    }

    private static String pad(String s, int w) {
        return s.length() >= w ? s : s + " ".repeat(w - s.length());
    }
}
