package granary.canary;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * What the canary measures per side, and how each can serve as a promotion guard
 * (docs/canary.md, "Metrics" and "Promotion and rollback").
 */
public enum Metric {
    /** Slots granted per minute. Lower is worse. */
    GRANTS("grants", false, true),
    /** Median wait from a unit's request to its first slot, ms (a unit still waiting counts with its wait so far). */
    WAIT_P50("waitP50", true, false),
    /** 90th percentile of that wait, ms. */
    WAIT_P90("waitP90", true, false),
    /** Units that waited past the timeout mark, per minute. Higher is worse. */
    TIMEOUTS("timeouts", true, true),
    /** Time-weighted mean of granted ÷ capacity of the binding resource. Lower is worse. */
    UTILISATION("utilisation", false, false),
    /** Slots revoked per minute. Higher is worse. */
    REVOCATIONS("revocations", true, true);

    private final String id;
    private final boolean higherIsWorse;
    private final boolean additive;

    Metric(String id, boolean higherIsWorse, boolean additive) {
        this.id = id;
        this.higherIsWorse = higherIsWorse;
        this.additive = additive;
    }

    public String id() {
        return id;
    }

    public boolean higherIsWorse() {
        return higherIsWorse;
    }

    /** Summed over time (shown as a count, guarded as a rate per minute). */
    public boolean additive() {
        return additive;
    }

    /** The metric of that id (case-insensitive), or null. */
    public static Metric of(String id) {
        return Arrays.stream(values()).filter(m -> m.id.equalsIgnoreCase(id)).findFirst().orElse(null);
    }

    public static String ids() {
        return Arrays.stream(values()).map(Metric::id).collect(Collectors.joining(", "));
    }
}
