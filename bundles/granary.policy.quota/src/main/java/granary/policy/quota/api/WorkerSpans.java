package granary.policy.quota.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;
import granary.api.model.Text;

/**
 * The service's worker count per time slice (docs/multi-tenancy.md, "The quota table"), e.g. {@code default:5000,0-9:15000}.
 */
public final class WorkerSpans {

    private final Map<TimeSlice, Long> spans;

    private WorkerSpans(Map<TimeSlice, Long> spans) {
        this.spans = Collections.unmodifiableMap(new LinkedHashMap<>(spans));
    }

    public static WorkerSpans of(Map<TimeSlice, Long> spans) {
        return new WorkerSpans(spans);
    }

    /** Problems of one WorkerSpans reported one by one; the rest are counted. */
    static final int MAX_PROBLEMS = 20;

    /**
     * Parses {@code slice:count,slice:count}.
     *
     * @throws InvalidRequestException naming every bad entry
     */
    public static WorkerSpans parse(String text) {
        // the text is echoed once, escaped and cut: a long WorkerSpans must not fill every problem
        String subject = "WorkerSpans " + Text.quote(text);
        if (text == null || text.isBlank()) {
            throw new InvalidRequestException(subject, "text", "is empty; expected e.g. default:5000,0-9:15000");
        }
        List<Problem> problems = new ArrayList<>();
        Map<TimeSlice, Long> spans = new LinkedHashMap<>();
        for (String entry : text.split(",")) {
            String e = entry.trim();
            int colon = e.lastIndexOf(':');
            if (colon <= 0 || colon == e.length() - 1) {
                problems.add(Problem.of(subject, entry(e), "is not slice:count, e.g. 0-9:15000"));
                continue;
            }
            TimeSlice slice;
            try {
                slice = TimeSlice.parse(e.substring(0, colon).trim());
            } catch (InvalidRequestException ex) {
                problems.add(Problem.of(subject, entry(e), ex.problems().get(0).message()));
                continue;
            }
            long count;
            try {
                count = Long.parseLong(e.substring(colon + 1).trim());
            } catch (NumberFormatException ex) {
                problems.add(Problem.of(subject, entry(e), "count '" + Text.escape(e.substring(colon + 1)) + "' is not a whole number"));
                continue;
            }
            if (count < 0) {
                problems.add(Problem.of(subject, entry(e), "count must not be negative, got " + count, 0, count));
            } else if (spans.put(slice, count) != null) {
                problems.add(Problem.of(subject, entry(e), "slice " + slice + " is given twice"));
            }
        }
        if (problems.size() > MAX_PROBLEMS) {
            // a long, broken WorkerSpans must not become a long error: the first ones, and a count
            int more = problems.size() - MAX_PROBLEMS;
            problems = new ArrayList<>(problems.subList(0, MAX_PROBLEMS));
            problems.add(Problem.of(subject, "entries", "and " + more + " more bad entries", MAX_PROBLEMS, MAX_PROBLEMS + more));
        }
        if (!problems.isEmpty()) {
            throw new InvalidRequestException(problems);
        }
        return new WorkerSpans(spans);
    }

    private static String entry(String e) {
        return "entry '" + Text.escape(e) + "'";
    }

    /** The worker count of a slice: its own entry, else the default entry, else null. */
    public Long at(TimeSlice slice) {
        Long n = spans.get(slice);
        return n != null ? n : spans.get(TimeSlice.DEFAULT);
    }

    public Map<TimeSlice, Long> entries() {
        return spans;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        spans.forEach((s, n) -> sb.append(sb.length() == 0 ? "" : ",").append(s).append(':').append(n));
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WorkerSpans w && w.spans.equals(spans);
    }

    @Override
    public int hashCode() {
        return spans.hashCode();
    }
}
