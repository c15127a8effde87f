/**
 * Granary's metrics in the Prometheus text format (docs/operations.md, "Metrics"), plain Java over the
 * {@link granary.api.event.Scheduler}, the live event loop's {@link granary.engine.HandlingListener}
 * and the master's {@link granary.master.MasterMonitor}: {@link granary.metrics.GranaryMetrics} owns a
 * registry of its own and writes a scrape. Not exported; the DS component and the servlet are in
 * {@code granary.metrics.osgi}.
 */
package granary.metrics;
