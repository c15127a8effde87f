package granary.planner.table;

import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;
import granary.policy.quota.api.TimeSlice;

/**
 * One validation problem of the draft, or a warning (a group left with nothing for some hours), placed in the timeline: the slice and group it is about
 * (either may be null), the field and what is wrong. {@code subject} is the validator's own words
 * for where ({@code slice 0-9, group group1}, {@code slices 0-9 and 8-12}, {@code group g1}).
 */
public record TableProblem(TimeSlice slice, String group, String field, String message, String subject, Kind kind) {

    /** A problem breaks the rules (nothing can be pushed); a warning must be acknowledged before a push. */
    public enum Kind { PROBLEM, WARNING, ACKNOWLEDGED }

    public TableProblem(TimeSlice slice, String group, String field, String message, String subject) {
        this(slice, group, field, message, subject, Kind.PROBLEM);
    }

    /** A warning that a group gets nothing for some hours (see {@link granary.planner.table.model.QuotaSources}). */
    public static TableProblem warning(granary.planner.table.model.QuotaSources.Loss loss, boolean acknowledged) {
        return new TableProblem(loss.slice(), loss.group(), "quota", loss.text(), "group " + loss.group(),
                acknowledged ? Kind.ACKNOWLEDGED : Kind.WARNING);
    }

    /** True for a warning, acknowledged or not. */
    public boolean isWarning() {
        return kind != Kind.PROBLEM;
    }

    /**
     * Places a problem of {@code QuotaTable.of} by its subject. Overlapping slices are placed at the
     * first one named; problems about the whole table or the WorkerSpans text have no place, except
     * a WorkerSpans entry for a slice that the table lacks (placed nowhere either: there is no such slice).
     */
    public static TableProblem of(Problem p) {
        String s = p.subject() == null ? "" : p.subject();
        TimeSlice slice = null;
        String group = null;
        if (s.startsWith("slice ")) {
            String rest = s.substring("slice ".length());
            int comma = rest.indexOf(", group ");
            if (comma >= 0) {
                group = rest.substring(comma + ", group ".length());
                rest = rest.substring(0, comma);
            }
            slice = parse(rest);
        } else if (s.startsWith("slices ")) {
            int and = s.indexOf(" and ");
            slice = parse(s.substring("slices ".length(), and < 0 ? s.length() : and));
        } else if (s.startsWith("group ")) {
            group = s.substring("group ".length());
        }
        return new TableProblem(slice, group, p.field(), p.message(), s);
    }

    private static TimeSlice parse(String key) {
        try {
            return TimeSlice.parse(key);
        } catch (InvalidRequestException e) {
            return null;
        }
    }

    /** As the list shows it: {@code slice 0-9: MinQuota: sum of MinQuota 16000 > WorkerSpans 15000}. */
    public String text() {
        return switch (kind) {
            case PROBLEM -> subject + ": " + field + ": " + message;
            case WARNING -> "warning: " + message + ": acknowledge it before pushing";
            case ACKNOWLEDGED -> "warning (acknowledged): " + message;
        };
    }

    @Override
    public String toString() {
        return text();
    }
}
