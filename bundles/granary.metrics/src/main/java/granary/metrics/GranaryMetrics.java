package granary.metrics;

import java.io.IOException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

import granary.api.event.Scheduler;
import granary.api.spi.PolicyDeclaration;
import granary.engine.EngineHost;
import granary.master.MasterMonitor;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.instrumentation.jvm.JvmBufferPoolMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmClassLoadingMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmGarbageCollectorMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmMemoryMetrics;
import io.prometheus.metrics.instrumentation.jvm.JvmRuntimeInfoMetric;
import io.prometheus.metrics.instrumentation.jvm.JvmThreadsMetrics;
import io.prometheus.metrics.instrumentation.jvm.ProcessMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * Granary's metrics: a Prometheus registry of its own (never the library's static default one), fed by
 * the engine's decisions and events as they happen, and read at scrape time from the engine (one
 * bounded query), the master and the JVM. {@link #write} produces the Prometheus text format
 * (docs/operations.md, "Metrics" lists every metric). Closing it stops listening to the engine.
 */
public final class GranaryMetrics implements AutoCloseable {

    /** The Prometheus text exposition format, version 0.0.4. */
    public static final String CONTENT_TYPE = PrometheusTextFormatWriter.CONTENT_TYPE;

    private final PrometheusRegistry registry = new PrometheusRegistry();
    private final PrometheusTextFormatWriter writer = PrometheusTextFormatWriter.create();
    private final EngineSampler engine;
    private final List<AutoCloseable> subscriptions = new ArrayList<>();

    /**
     * @param scheduler      the engine: its output events are counted, its state read at each scrape
     * @param host           the live event loop, whose handling listener counts input events and their
     *                       duration; null leaves those metrics out
     * @param declarations   the declarations of the policies there are now (the metrics they declare)
     * @param master         the master's monitor now, or null without one
     * @param engineTimeout  the longest a scrape waits for the engine
     * @param jvm            whether to serve the JVM's and the process's metrics too
     */
    public GranaryMetrics(Scheduler scheduler, EngineHost host, Supplier<? extends Collection<PolicyDeclaration>> declarations,
                          Supplier<MasterMonitor> master, Duration engineTimeout, boolean jvm) {
        // built, not PrometheusProperties.get(): no prometheus.properties file or system property changes these metrics
        PrometheusProperties properties = PrometheusProperties.builder().build();
        DecisionCounters counters = new DecisionCounters(registry, properties);
        engine = new EngineSampler(scheduler, declarations, engineTimeout);
        registry.register(engine);
        registry.register(new MasterSampler(master));
        if (jvm) {
            registerJvm(properties);
        }
        subscriptions.add(scheduler.subscribe(counters));
        if (host != null) {
            subscriptions.add(host.watchHandling(counters));
        }
    }

    /**
     * The JVM's metrics one by one: JvmMetrics' all-in-one registration keeps every registry in a static
     * set, and the memory pool allocation metrics install GC listeners that are never removed.
     */
    private void registerJvm(PrometheusProperties properties) {
        JvmThreadsMetrics.builder(properties).register(registry);
        JvmBufferPoolMetrics.builder(properties).register(registry);
        JvmClassLoadingMetrics.builder(properties).register(registry);
        JvmGarbageCollectorMetrics.builder(properties).register(registry);
        JvmMemoryMetrics.builder(properties).register(registry);
        JvmRuntimeInfoMetric.builder(properties).register(registry);
        ProcessMetrics.builder(properties).register(registry);
    }

    /** Changes the longest wait for the engine from the next scrape on. */
    public void engineTimeout(Duration timeout) {
        engine.timeout(timeout);
    }

    /** Every metric now. */
    public MetricSnapshots scrape() {
        return registry.scrape();
    }

    /** Every metric now, in the Prometheus text format ({@link #CONTENT_TYPE}). */
    public void write(OutputStream out) throws IOException {
        writer.write(out, scrape());
    }

    @Override
    public void close() {
        for (AutoCloseable s : subscriptions) {
            try {
                s.close();
            } catch (Exception ex) {
                // the engine is going away too
            }
        }
        subscriptions.clear();
    }
}
