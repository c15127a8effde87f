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
            if (t.code() == u.latest()) {
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
        return switch (code) {
            case NO_FIT -> "no room";
            case QUOTA -> "limit reached";
            case UNFUNDED -> "group not funded now";
            case DRAWBACK -> "group over its max";
            case MAX_RUNNING -> "running-job limit reached";
            case LOCKED -> "node locked";
            case BLACKLISTED -> "blacklisted";
            case LABELS -> "labels do not match";
            case MAX_PER_NODE -> "per-node maximum reached";
            case LOCALITY -> "outside its locality preferences";
            case NO_POLICY -> "no policy in effect";
            case NO_PLACEMENT -> "the gang does not fit whole";
            case TOO_LARGE -> "too large";
            case BEHIND -> "behind other work";
            case UNKNOWN_GROUP -> "unknown group";
            case LOOKAHEAD -> "held before a quota slice boundary";
            case OTHER -> "other";
        };
    }

    /** What would help, where that is plain; null where it is not. */
    static String hint(Reason r) {
        String s = safe(r.subject());
        return switch (r.code()) {
            case QUOTA -> "It gets more when work in " + s + " releases slots, or when that limit is raised.";
            case DRAWBACK -> capital(s) + " holds more than its max: it gets nothing until its jobs release enough to"
                    + " fall below the max, or the max is raised.";
            case UNFUNDED -> capital(s) + " has no quota in the current time slice: its work waits for a slice that"
                    + " funds it, or for a quota table that funds it now.";
            case MAX_RUNNING -> "It starts when running jobs of " + s + " end, or when that limit is raised.";
            case LOOKAHEAD -> "It is held back until the quota slice boundary has passed.";
            case NO_FIT -> "It is placed when a node frees enough room (slots released, a node added or enlarged);"
                    + " a smaller slot would fit sooner.";
            case TOO_LARGE -> "It cannot be placed as it is: ask for a smaller slot, or add a node large enough.";
            case BLACKLISTED -> "Taking nodes off the global blacklist (granary:unblacklist) or off the unit's own"
                    + " blacklist would give it room.";
            case LABELS -> "More nodes with the labels it selects, or a looser node selector, would give it room.";
            case MAX_PER_NODE -> "It holds its maximum slots per node where there is room: more nodes with room, or a"
                    + " higher maxPerNode, would let it grow.";
            case LOCKED -> "The nodes with room are locked for another job by a reservation; they open when that job"
                    + " has started or the reservation ends.";
            case LOCALITY -> "Its locality preferences leave it no node with room; a ROOM or CLUSTER preference would"
                    + " let it run elsewhere.";
            case NO_POLICY -> "Select a policy for that extension point (granary:policies lists them, granary:policy"
                    + " <name> selects one).";
            case NO_PLACEMENT -> "A gang gets all its slots at once and never holds part of them: it is placed when"
                    + " enough room is free together.";
            case BEHIND -> "It waits until the work ahead of it is placed.";
            case UNKNOWN_GROUP -> "Move the job to a group that exists (granary:move <job> <queue>).";
            case OTHER -> null;
        };
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

    private static String capital(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
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
