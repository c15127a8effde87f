/**
 * The metrics in the OSGi runtime: a DS component that serves {@link granary.metrics.GranaryMetrics}
 * at {@code /metrics} on the Jakarta Servlet Whiteboard (Felix HTTP on Jetty), configured from Config
 * Admin PID {@code granary.metrics}. Not exported.
 */
package granary.metrics.osgi;
