package granary.api.spi;

import java.util.List;

/**
 * A metric a policy exports, read from one of its reports (docs/operations.md, "Metrics"): a gauge
 * with one sample per row of the report's table {@code section}, labelled {@code policy} (the policy's
 * name) and by the row's {@code labels} cells, valued by its {@code value} cell. A {@link Kind#NUMBER}
 * metric takes a number as it is; an {@link Kind#AMOUNT} metric reads a number as slots and resources
 * as one sample per resource (labels {@code resource} and {@code unit}, in base units). A row without
 * the value cell, or with another kind of value, gives no sample. The metrics
 * endpoint reads every metric of every policy in effect in one engine query per scrape and never names
 * a policy: two policies that declare a metric of the same name share one family.
 *
 * @param kind    how the value is read
 * @param name    the Prometheus name, {@code granary_} and lower case: {@code granary_group_quota_min}
 * @param help    one sentence: what a sample says
 * @param report  the name of the policy's report it reads (a report the declaration has, read without arguments)
 * @param section the report's table section
 * @param labels  the cells that label a sample, in order: {@code group}
 * @param value   the cell that values it
 */
public record MetricSpec(Kind kind, String name, String help, String report, String section, List<String> labels, String value) {

    /** How a value is read: a plain number, or an amount (slots, or resources). */
    public enum Kind { NUMBER, AMOUNT }

    public MetricSpec {
        if (name == null || !name.matches("granary_[a-z0-9_]+")) {
            throw new IllegalArgumentException("a policy's metric name is 'granary_' then lower-case letters, digits and '_', got '"
                    + name + "'");
        }
        if (help == null || help.isBlank()) {
            throw new IllegalArgumentException("metric " + name + ": its help text is empty");
        }
        labels = List.copyOf(labels);
        if (labels.contains("policy") || labels.contains("resource") || labels.contains("unit")) {
            throw new IllegalArgumentException("metric " + name + ": the labels 'policy', 'resource' and 'unit' are the"
                    + " endpoint's, got " + labels);
        }
    }

    /** A gauge of the number {@code value} per row of {@code report}'s table {@code section}, labelled by {@code labels}. */
    public static MetricSpec number(String name, String help, String report, String section, List<String> labels, String value) {
        return new MetricSpec(Kind.NUMBER, name, help, report, section, labels, value);
    }

    /** A gauge of the amount {@code value} (slots, or resources per resource) per row of the table. */
    public static MetricSpec amount(String name, String help, String report, String section, List<String> labels, String value) {
        return new MetricSpec(Kind.AMOUNT, name, help, report, section, labels, value);
    }
}
