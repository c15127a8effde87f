package granary.api.spi;

import java.util.List;

/**
 * A metric a policy exports, read from one of its reports (docs/operations.md, "Metrics"): a gauge
 * with one sample per row of the report's table {@code section}, labelled {@code policy} (the policy's
 * name) and by the row's {@code labels} cells, valued by its {@code value} cell. A value that is a
 * number is one sample; a value that is resources is one sample per resource (label {@code resource},
 * in base units); a row without the value cell, or with another kind of value, gives none. The metrics
 * endpoint reads every metric of every policy in effect in one engine query per scrape and never names
 * a policy: two policies that declare a metric of the same name share one family.
 *
 * @param name    the Prometheus name, {@code granary_} and lower case: {@code granary_group_quota_min}
 * @param help    one sentence: what a sample says
 * @param report  the name of the policy's report it reads (a report the declaration has, read without arguments)
 * @param section the report's table section
 * @param labels  the cells that label a sample, in order: {@code group}
 * @param value   the cell that values it
 */
public record MetricSpec(String name, String help, String report, String section, List<String> labels, String value) {

    public MetricSpec {
        if (name == null || !name.matches("granary_[a-z0-9_]+")) {
            throw new IllegalArgumentException("a policy's metric name is 'granary_' then lower-case letters, digits and '_', got '"
                    + name + "'");
        }
        if (help == null || help.isBlank()) {
            throw new IllegalArgumentException("metric " + name + ": its help text is empty");
        }
        labels = List.copyOf(labels);
        if (labels.contains("policy") || labels.contains("resource")) {
            throw new IllegalArgumentException("metric " + name + ": the labels 'policy' and 'resource' are the endpoint's, got "
                    + labels);
        }
    }

    /** A gauge of {@code value} per row of {@code report}'s table {@code section}, labelled by {@code labels}. */
    public static MetricSpec gauge(String name, String help, String report, String section, List<String> labels, String value) {
        return new MetricSpec(name, help, report, section, labels, value);
    }
}
