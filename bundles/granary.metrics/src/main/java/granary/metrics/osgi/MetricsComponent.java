package granary.metrics.osgi;

import granary.api.event.Scheduler;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;
import granary.engine.EngineHost;
import granary.master.MasterMonitor;
import granary.metrics.GranaryMetrics;
import granary.metrics.ScrapeAccess;
import jakarta.servlet.Servlet;
import java.time.Duration;
import java.util.Hashtable;
import java.util.List;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Serves {@link GranaryMetrics} at {@code GET /metrics} on the HTTP whiteboard, configured from Config
 * Admin PID {@value #PID} (docs/operations.md, "Metrics"). The engine is required; the master's
 * {@link MasterMonitor} is optional and dynamic (a runtime without a master side, a standby under high
 * availability); the policies' declarations are followed as their bundles come and go. A new
 * configuration applies from the next scrape on, without resetting the counters.
 */
@Component(immediate = true, service = {}, configurationPid = MetricsComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = MetricsComponent.Config.class)
public class MetricsComponent {

    public static final String PID = "granary.metrics";

    @ObjectClassDefinition(name = "Granary metrics", description = "Prometheus metrics at GET /metrics.")
    public @interface Config {
        @AttributeDefinition(type = AttributeType.PASSWORD, required = false,
                description = "The bearer token a scraper must send (Authorization: Bearer <token>); empty: anyone may scrape.")
        String token() default "";

        @AttributeDefinition(description = "The longest a scrape waits for the engine's state, in milliseconds; past it the "
                + "scrape serves the rest and granary_scrape_engine_timeout 1.")
        long engineTimeoutMillis() default 2000;

        @AttributeDefinition(description = "Serve the JVM's and the process's metrics too (jvm_*, process_*). Read at start.")
        boolean jvm() default true;
    }

    @Reference
    private Scheduler scheduler;

    @Reference
    private EngineHost host;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile MasterMonitor master;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<PolicyProvider> policies;

    private GranaryMetrics metrics;
    private MetricsServlet servlet;
    private ServiceRegistration<Servlet> registration;

    @Activate
    void activate(BundleContext context, Config config) {
        metrics = new GranaryMetrics(scheduler, host, this::declarations, () -> master,
                Duration.ofMillis(config.engineTimeoutMillis()), config.jvm());
        servlet = new MetricsServlet(metrics, new ScrapeAccess(config.token()));
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("osgi.http.whiteboard.servlet.pattern", "/metrics");
        props.put("osgi.http.whiteboard.servlet.name", "granary-metrics");
        registration = context.registerService(Servlet.class, servlet, props);
    }

    @Modified
    void modified(Config config) {
        metrics.engineTimeout(Duration.ofMillis(config.engineTimeoutMillis()));
        servlet.access(new ScrapeAccess(config.token()));
    }

    private List<PolicyDeclaration> declarations() {
        List<PolicyProvider> now = policies;
        return now == null ? List.of() : now.stream().map(PolicyProvider::declaration).toList();
    }

    @Deactivate
    void deactivate() {
        try {
            registration.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the bundle is stopping: the framework unregistered it first
        }
        metrics.close();
    }
}
