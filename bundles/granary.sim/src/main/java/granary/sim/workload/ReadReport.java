package granary.sim.workload;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a reader did with its input, so that nothing is dropped silently: rows read, and per reason
 * the rows it skipped, the values it defaulted and the values it adjusted (e.g. negative times
 * clamped to 0), with the first few examples of each.
 */
public final class ReadReport {

    private static final int EXAMPLES = 3;

    private final String source;
    private long rows;
    private final Map<String, Long> skipped = new LinkedHashMap<>();
    private final Map<String, Long> defaulted = new LinkedHashMap<>();
    private final Map<String, Long> adjusted = new LinkedHashMap<>();
    private final Map<String, List<String>> examples = new LinkedHashMap<>();
    private final Map<String, String> facts = new LinkedHashMap<>();

    public ReadReport(String source) {
        this.source = source;
    }

    public String source() {
        return source;
    }

    public void row() {
        rows++;
    }

    public long rows() {
        return rows;
    }

    /** A row left out, e.g. {@code empty request}; {@code where} is {@code file:line}. */
    public void skip(String reason, String where) {
        count(skipped, reason, where);
    }

    /** A missing value replaced by a default, e.g. {@code empty request -> cpu=50,mem=0.0054}. */
    public void defaulted(String reason, String where) {
        count(defaulted, reason, where);
    }

    /** A value changed by a documented rule, e.g. {@code create time <= 0 clamped to 0}. */
    public void adjust(String reason, String where) {
        count(adjusted, reason, where);
    }

    /** A fact about the input worth showing, e.g. the SWF header's MaxProcs. */
    public void fact(String key, String value) {
        facts.put(key, value);
    }

    private void count(Map<String, Long> m, String reason, String where) {
        m.merge(reason, 1L, Long::sum);
        List<String> ex = examples.computeIfAbsent(reason, k -> new ArrayList<>());
        if (ex.size() < EXAMPLES) {
            ex.add(where);
        }
    }

    public Map<String, Long> skipped() {
        return Collections.unmodifiableMap(skipped);
    }

    public Map<String, Long> defaulted() {
        return Collections.unmodifiableMap(defaulted);
    }

    public Map<String, Long> adjusted() {
        return Collections.unmodifiableMap(adjusted);
    }

    public Map<String, String> facts() {
        return Collections.unmodifiableMap(facts);
    }

    /** The first rows (file:line) counted under a reason. */
    public List<String> examples(String reason) {
        return examples.getOrDefault(reason, List.of());
    }

    public long skippedTotal() {
        return skipped.values().stream().mapToLong(Long::longValue).sum();
    }

    public long defaultedTotal() {
        return defaulted.values().stream().mapToLong(Long::longValue).sum();
    }
}
