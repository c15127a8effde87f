package granary.console;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import granary.api.model.Text;
import granary.api.spi.EngineStatus;
import granary.api.spi.PolicyInfo;

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
        return status(s, 0, 0, Map.of());
    }

    /**
     * The role of a master under high availability, first in its status (docs/ha.md, "The lease"): a
     * standby's engine is empty (nodes=0, health=ok) because another master leads, and this says so,
     * with the leader when it is known and why in words.
     */
    static String role(boolean leads, String why, java.net.URI leader) {
        if (leads) {
            return "role=leader";
        }
        return "role=standby\nleader=" + (leader == null ? "unknown" : Text.escape(leader.toString()))
                + "\nrole.why=" + Text.escape(why);
    }

    /**
     * The status, with the job submissions the engine refused since it started: {@code refused_submissions}
     * (a batch counts once), {@code refused_jobs}, and {@code refused_jobs.<reason>} for each reason
     * seen ({@code refused_jobs.unknown_group=3}); a refused job never shows in {@code jobs}.
     */
    static String status(EngineStatus s, long refusedSubmissions, long refusedJobs, Map<String, Long> refusedJobsByReason) {
        StringBuilder sb = new StringBuilder();
        line(sb, "time", Long.toString(s.now()));
        line(sb, "nodes", Integer.toString(s.nodes()));
        line(sb, "capacity", s.capacity().toString());
        line(sb, "free", s.free().toString());
        line(sb, "used_share", String.format(Locale.ROOT, "%.3f",
                s.capacity().minus(s.free()).dominantShare(s.capacity())));
        line(sb, "jobs", Integer.toString(s.jobs()));
        line(sb, "refused_submissions", Long.toString(refusedSubmissions));
        line(sb, "refused_jobs", Long.toString(refusedJobs));
        for (Map.Entry<String, Long> e : new TreeMap<>(refusedJobsByReason).entrySet()) {
            line(sb, "refused_jobs." + e.getKey(), Long.toString(e.getValue()));
        }
        line(sb, "waiting_units", Integer.toString(s.waitingUnits()));
        line(sb, "waiting_slots", Long.toString(s.waitingSlots()));
        line(sb, "granted_slots", Long.toString(s.grantedSlots()));
        line(sb, "decisions", Long.toString(s.decisions()));
        for (Map.Entry<String, String> e : new TreeMap<>(s.policies()).entrySet()) {
            line(sb, "policy." + e.getKey(), e.getValue());
        }
        line(sb, "health", s.health());
        for (int i = 0; i < s.held().size(); i++) {
            line(sb, "held." + (i + 1), Text.escape(s.held().get(i)));
        }
        for (Map.Entry<String, String> e : new TreeMap<>(s.problems()).entrySet()) {
            line(sb, "problem." + e.getKey(), Text.escape(e.getValue()));
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
