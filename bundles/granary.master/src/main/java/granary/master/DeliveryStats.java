package granary.master;

/**
 * Delivery latency: milliseconds from a change of grants to the cap (to an agent) or the hint (to
 * a job master) carrying it leaving the master; the master keeps the two apart. {@code count} and {@code sumMillis} cover every delivery since the master started (so that
 * a monitor can take rates and averages); the quantiles cover the last {@value Latencies#KEPT}
 * deliveries, {@code -1} with none.
 */
public record DeliveryStats(long count, long sumMillis, long p50Millis, long p99Millis) {
}
