package granary.policy.quota;

/**
 * A group's usage integrated over time on one day in one slice: slot-seconds, cpu core-seconds and
 * memory GiB-seconds.
 */
public record BillingRow(String day, String slice, String group, double slotSeconds, double cpuCoreSeconds,
                         double memGibSeconds) {
}
