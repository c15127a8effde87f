package granary.api.model;

import java.util.ArrayList;
import java.util.List;

/** Collects the problems of one input so that all of them are reported together. */
final class Checks {

    private final String subject;
    private final List<Problem> problems = new ArrayList<>();

    Checks(String subject) {
        this.subject = subject;
    }

    Checks name(String field, String value) {
        if (value == null || value.isEmpty()) {
            problems.add(Problem.of(subject, field, "is missing"));
        } else if (!Names.isValid(value)) {
            problems.add(Problem.of(subject, field, "'" + Text.escape(value) + "' is not a valid name: "
                    + Names.RULE));
        }
        return this;
    }

    Checks nonNegative(String field, Resources r) {
        if (r == null) {
            problems.add(Problem.of(subject, field, "is missing"));
        } else if (!r.isNonNegative()) {
            String res = r.firstNegative();
            problems.add(Problem.of(subject, field + "." + res, "must not be negative, got " + r.get(res),
                    0, r.get(res)));
        }
        return this;
    }

    /**
     * Every amount at most {@link Resources#MAX_AMOUNT}: a capacity or a slot larger than that is
     * not a machine, and sums over a cluster of such amounts could not be kept exact.
     */
    Checks bounded(String field, Resources r) {
        if (r == null) {
            return this;
        }
        check(field + ".cpu", r.cpu(), Resources.MAX_AMOUNT);
        check(field + ".mem", r.memMb(), Resources.MAX_AMOUNT);
        for (int i = 0; i < r.extendedCount(); i++) {
            check(field + "." + r.extendedName(i), r.extendedValue(i), Resources.MAX_AMOUNT);
        }
        return this;
    }

    private void check(String field, long value, long max) {
        if (value > max) {
            problems.add(Problem.of(subject, field, "must be at most " + max + ", got " + value, max, value));
        }
    }

    Checks atLeast(String field, long value, long min) {
        if (value < min) {
            problems.add(Problem.of(subject, field, "must be at least " + min + ", got " + value, min, value));
        }
        return this;
    }

    Checks check(boolean ok, String field, String message) {
        if (!ok) {
            problems.add(Problem.of(subject, field, message));
        }
        return this;
    }

    Checks add(Problem p) {
        problems.add(p);
        return this;
    }

    void done() {
        if (!problems.isEmpty()) {
            throw new InvalidRequestException(problems);
        }
    }
}
