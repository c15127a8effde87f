package granary.http.osgi;

import granary.api.event.Scheduler;
import granary.api.spi.PolicyProvider;
import granary.http.Api;
import granary.http.ApiAuth;
import granary.http.ApiServlet;
import granary.http.AuditLog;
import granary.http.EventStream;
import granary.http.PeerSource;
import granary.master.LeaderLease;
import granary.master.MasterMonitor;
import granary.master.PeerStatus;
import granary.protocol.link.Tokens;
import jakarta.servlet.Servlet;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * Puts the HTTP API on the runtime's HTTP whiteboard at {@code /api/v1/*}, with its settings from
 * Config Admin PID {@value #PID} (docs/api.md, "Running it"). Writes are taken only while the
 * master side's {@link LeaderLease} service is held (docs/ha.md, "The API of a standby"): always
 * for a single master; for the elected leader while its lease holds; never for a standby.
 */
@Component(immediate = true, service = {}, configurationPid = ApiComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = ApiComponent.Config.class)
public final class ApiComponent {

    public static final String PID = "granary.http";

    @ObjectClassDefinition(name = "Granary HTTP API", description = "The operators' REST API, allocation stream and OpenAPI description")
    public @interface Config {
        @AttributeDefinition(description = "The token secret file, the master's (tokens of reader/, operator/, admin/NAME). Relative: to the working directory.")
        String secretFile() default "granary.secret";

        @AttributeDefinition(description = "The audit log: every write, one JSON object per line. Empty: in memory only.")
        String auditFile() default "granary-audit.log";

        @AttributeDefinition(description = "How many of the latest writes GET /api/v1/audit can return")
        int auditKept() default 1000;

        @AttributeDefinition(description = "Whether reads need no token (writes always need one)")
        boolean openReads() default false;

        @AttributeDefinition(description = "Events the allocation stream keeps for subscribers that reconnect")
        int streamBuffer() default 65536;

        @AttributeDefinition(description = "How often node and group usage is sampled for the stream (ms)")
        long streamSampleMillis() default 1000;

        @AttributeDefinition(description = "Stream subscribers served at once")
        int maxSubscribers() default 256;

        @AttributeDefinition(description = "The longest wait for the engine before a request is answered 503 (ms)")
        long engineTimeoutMillis() default 10000;
    }

    private static final String HTTP_ENABLE = "org.apache.felix.http.enable";
    private static final String HTTPS_ENABLE = "org.apache.felix.https.enable";

    @Reference
    private Scheduler scheduler;

    private final List<PolicyProvider> providers = new CopyOnWriteArrayList<>();
    private ServiceRegistration<?> servlet;
    private EventStream stream;
    private AuditLog audit;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addProvider(PolicyProvider p) {
        providers.add(p);
    }

    void removeProvider(PolicyProvider p) {
        providers.remove(p);
    }

    @Activate
    void activate(BundleContext context, Config config) throws IOException {
        if ("false".equals(context.getProperty(HTTP_ENABLE)) && !"true".equals(context.getProperty(HTTPS_ENABLE))) {
            return; // the runtime serves no HTTP (--listen=off)
        }
        Tokens tokens = Tokens.fromFile(Path.of(config.secretFile()).toAbsolutePath());
        audit = new AuditLog(config.auditFile().isBlank() ? null : Path.of(config.auditFile()).toAbsolutePath(),
                config.auditKept(), System::currentTimeMillis);
        Api api = new Api(scheduler, () -> (Collection<PolicyProvider>) providers, audit, this::peers,
                Duration.ofMillis(config.engineTimeoutMillis()));
        stream = new EventStream(scheduler, config.streamBuffer(), Long.toString(System.currentTimeMillis(), 36),
                config.maxSubscribers()).start(config.streamSampleMillis());
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("osgi.http.whiteboard.servlet.pattern", Api.BASE + "/*");
        props.put("osgi.http.whiteboard.servlet.asyncSupported", Boolean.TRUE);
        props.put("osgi.http.whiteboard.servlet.name", "granary-api");
        servlet = context.registerService(Servlet.class, new ApiServlet(api, new ApiAuth(tokens, config.openReads()), stream,
                context.getBundle().getVersion().toString(), () -> lease), props);
        Hashtable<String, Object> errors = new Hashtable<>();
        errors.put("osgi.http.whiteboard.servlet.errorPage", new String[] {"4xx", "5xx"});
        errors.put("osgi.http.whiteboard.servlet.pattern", "/"); // and every path nothing else serves: 404
        errors.put("osgi.http.whiteboard.servlet.name", "granary-errors");
        errorPages = context.registerService(Servlet.class, new granary.http.ErrorPageServlet(), errors);
    }

    /** The runtime's error pages as problem JSON. */
    private org.osgi.framework.ServiceRegistration<Servlet> errorPages;

    /**
     * The master side's leadership (registered by granary.master's component before it serves);
     * null while none is registered: then no write is taken, so a standby that is still starting
     * never takes one.
     */
    private volatile LeaderLease lease;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void bindLease(LeaderLease l) {
        lease = l;
    }

    void unbindLease(LeaderLease l) {
        if (lease == l) {
            lease = null;
        }
    }

    /** The master's peers while a master serves here (a single master, or the elected leader), else null. */
    private volatile MasterMonitor monitor;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void bindMonitor(MasterMonitor m) {
        monitor = m;
    }

    void unbindMonitor(MasterMonitor m) {
        if (monitor == m) {
            monitor = null;
        }
    }

    private PeerSource peers() {
        MasterMonitor m = monitor;
        return m == null ? null : new PeerSource() {
            @Override
            public List<PeerStatus> agents() {
                return m.agents();
            }

            @Override
            public List<PeerStatus> jobMasters() {
                return m.jobMasters();
            }
        };
    }

    @Deactivate
    void deactivate() {
        if (errorPages != null) {
            try {
                errorPages.unregister();
            } catch (IllegalStateException e) {
                // gone with the bundle already
            }
        }
        if (servlet != null) {
            try {
                servlet.unregister();
            } catch (IllegalStateException e) {
                // gone with the bundle already
            }
        }
        if (stream != null) {
            stream.close();
        }
        if (audit != null) {
            audit.close();
        }
    }
}
