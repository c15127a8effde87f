package granary.api.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import granary.api.model.Text;

/**
 * The sentences of a {@link JobWhy}: what waits, since when, why, and what would help
 * (docs/scheduling.md, "Why is my job not scheduled?"). Text that came from an input (ids, a
 * policy's message) is escaped, so a sentence is always one line of plain text.
 */
final class WhySentences {

    /** Reasons named besides the most frequent and the latest; the rest are counted. */
    private static final int MORE = 3;

    private WhySentences() {
    }

    static List<String> of(JobWhy w) {
        List<String> out = new ArrayList<>();
        String job = Text.escape(w.job());
        switch (w.state()) {
            case ENDED -> out.add("Job " + job + " has finished or was cancelled.");
            case PLACED -> {
                out.add("Job " + job + " is fully placed: nothing waits.");
                long granted = w.units().stream().mapToLong(JobWhy.UnitWhy::granted).sum();
                out.add("It holds " + slots(granted) + " in " + count(w.units().size(), "unit") + ".");
            }
            case WAITING -> {
                long desired = w.units().stream().mapToLong(JobWhy.UnitWhy::desired).sum();
                out.add("Job " + job + " in group " + Text.escape(w.group()) + " waits for " + w.waitingSlots()
                        + " of its " + slots(desired) + " (" + (desired - w.waitingSlots()) + " granted).");
                for (JobWhy.UnitWhy u : w.units()) {
                    if (u.remaining() > 0) {
                        unit(u, w.now(), out);
                    }
                }
            }
        }
        return out;
    }

    private static void unit(JobWhy.UnitWhy u, long now, List<String> out) {
        String id = Text.escape(u.unit());
        out.add("Unit " + id + (u.waitingSince() >= 0 ? " has been waiting" : " waits") + " for " + u.remaining()
                + " of " + slots(u.desired()) + " (" + u.granted() + " granted)"
                + (u.waitingSince() >= 0 ? " for " + duration(now - u.waitingSince()) : "") + ".");
        List<ReasonTally> reasons = u.reasons();
        if (reasons.isEmpty()) {
            out.add("The engine has not recorded why yet: it has not tried to place the unit since it began to wait"
                    + " (for example while no unit order is in effect, or while scheduling is held).");
            return;
        }
        ReasonTally top = reasons.get(0);
        ReasonTally latest = top;
        for (ReasonTally t : reasons) {
            if (t.code().equals(u.latest())) {
                latest = t;
            }
        }
        out.add("Most often " + when(top, now) + ": " + describe(top.last(), u.unit()) + ".");
        if (latest != top) {
            out.add("Most recently " + when(latest, now) + ": " + describe(latest.last(), u.unit()) + ".");
        }
        int named = 0;
        for (ReasonTally t : reasons) {
            if (t != top && t != latest && named < MORE) {
                out.add("Also " + when(t, now) + ": " + describe(t.last(), u.unit()) + ".");
                named++;
            }
        }
        int left = reasons.size() - named - (latest != top ? 2 : 1);
        if (left > 0) {
            out.add("And " + count(left, "other reason") + ".");
        }
        String help = hint(latest.last());
        if (help != null) {
            out.add(help);
        }
    }

    /** "(37 times, last 0.2 s ago)". */
    private static String when(ReasonTally t, long now) {
        String times = t.count() == 1 ? "once" : t.count() == 2 ? "twice" : t.count() + " times";
        if (t.lastAtMillis() < 0) {
            return "(" + times + ")";
        }
        long ago = now - t.lastAtMillis();
        return "(" + times + ", last " + (ago < 50 ? "just now" : duration(ago) + " ago") + ")";
    }

    /**
     * A reason as a clause: the engine's own reasons about the unit are written as clauses already;
     * another subject (a group, a queue, a node, a gang) is named with what its code means.
     */
    static String describe(Reason r, String unit) {
        String message = safe(r.message());
        if (r.subject() == null || r.subject().equals("unit " + unit)) {
            return message;
        }
        return meaning(r.code()) + " (" + safe(r.subject()) + "): " + message;
    }

    /** What a code means, in a few words. */
    static String meaning(ReasonCode code) {
        return code.meaning();
    }

    /** What would help, where that is plain; null where it is not. */
    static String hint(Reason r) {
        return r.code().hint(safe(r.subject()));
    }

    /** An engine duration for people: "0.2 s", "12 s", "3 min 20 s", "2 h 5 min", "3 d 4 h". */
    static String duration(long ms) {
        long t = Math.max(0, ms);
        if (t < 10_000) {
            return String.format(Locale.ROOT, "%.1f s", t / 1000.0);
        }
        long s = t / 1000;
        if (s < 60) {
            return s + " s";
        }
        if (s < 3600) {
            return s / 60 + " min" + (s % 60 > 0 ? " " + s % 60 + " s" : "");
        }
        if (s < 86_400) {
            return s / 3600 + " h" + (s % 3600 / 60 > 0 ? " " + s % 3600 / 60 + " min" : "");
        }
        return s / 86_400 + " d" + (s % 86_400 / 3600 > 0 ? " " + s % 86_400 / 3600 + " h" : "");
    }

    private static String slots(long n) {
        return count(n, "slot");
    }

    private static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** Escaped only if it holds a character that would change what a terminal shows (not cut: a message may be long). */
    private static String safe(String s) {
        if (s == null) {
            return "";
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c == 0x7f || c == '\u2028' || c == '\u2029' || (c >= '\u202a' && c <= '\u202e')
                    || (c >= '\u2066' && c <= '\u2069')) {
                return Text.escape(s);
            }
        }
        return s;
    }
}
