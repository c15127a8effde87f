package granary.master.osgi;

import granary.api.event.Scheduler;
import granary.api.model.Clock;
import granary.ha.HaSettings;
import granary.ha.LeaderInfo;
import granary.ha.Leadership;
import granary.ha.MasterElection;
import granary.master.LeaderLease;
import granary.master.MasterMonitor;
import granary.master.MasterOptions;
import granary.master.PeerStatus;
import granary.master.ProtocolMaster;
import granary.recovery.Recovery;
import granary.protocol.link.Tokens;
import jakarta.servlet.Servlet;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Hashtable;
import java.util.List;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The master's protocol side in the runtime: {@link ProtocolMaster} over the engine, its servlet
 * on the HTTP whiteboard at {@code /protocol/v1/*}, and the peer commands of the console. Reads
 * its settings from Config Admin PID {@value #PID} (docs/protocol.md, "Running a cluster").
 *
 * <p>High availability (docs/ha.md): with {@code zk} set, this master joins the election of
 * {@code haCluster} and serves as a standby (every call refused with the leader's URL) until it is
 * elected. Then, and only then, it creates its {@link ProtocolMaster}, empty, with the leadership
 * epoch as its incarnation, and its election's lease: it acts only while the lease holds
 * (docs/ha.md, "The lease"). When it is deposed (lease lapsed, ZooKeeper session suspended or
 * lost, leadership lost) it stops serving at once and halts the JVM with exit code
 * {@value #EXIT_STEPPED_DOWN}, so that its supervisor restarts it as a standby with empty memory.
 *
 * <p>Whenever it has a master side the component registers a {@link LeaderLease} service before
 * it serves anything: {@link LeaderLease#ALWAYS} for a single master, else the election's
 * ({@link ElectionLease}). The HTTP API takes writes only while it is held.
 *
 * <p>While its {@link ProtocolMaster} serves (at once for a single master, once elected under high
 * availability) the component registers it as a {@link MasterMonitor} service, for the metrics and
 * the HTTP API; a runtime that serves no HTTP has no master side and no such service.
 */
@Component(immediate = true, service = {}, configurationPid = MasterComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = MasterComponent.Config.class)
public class MasterComponent {

    public static final String PID = "granary.master";

    /** Felix HTTP's switch, which the launcher's {@code --listen=off} turns off. */
    static final String HTTP_ENABLE = "org.apache.felix.http.enable";
    /** Its HTTPS switch, on with the launcher's {@code --keystore}. */
    static final String HTTPS_ENABLE = "org.apache.felix.https.enable";

    /** The exit code of a master that was deposed (EX_TEMPFAIL: restart it, it will be a standby). */
    public static final int EXIT_STEPPED_DOWN = 75;

    @ObjectClassDefinition(name = "Granary master", description = "The master's side of the wire protocol.")
    public @interface Config {
        @AttributeDefinition(description = "The token secret file (created with a random secret if missing). Relative: to the working directory.")
        String secretFile() default "granary.secret";

        @AttributeDefinition(description = "The master's name on the wire.")
        String name() default "master";

        @AttributeDefinition(description = "Seconds without a message or poll after which an agent is lost.")
        long agentTimeoutSeconds() default 30;

        @AttributeDefinition(description = "Seconds without a message or poll after which a job master is lost.")
        long jobMasterTimeoutSeconds() default 60;

        @AttributeDefinition(description = "High availability: the ZooKeeper ensemble, host:port[,host:port...]; empty: a single master without ZooKeeper.")
        String zk() default "";

        @AttributeDefinition(description = "High availability: the cluster's name; its masters elect one leader under /granary/<name> in ZooKeeper.")
        String haCluster() default "default";

        @AttributeDefinition(description = "High availability: this master's protocol URL as agents and job masters reach it; empty: from the HTTP host and port.")
        String advertise() default "";

        @AttributeDefinition(description = "High availability: the ZooKeeper session timeout in ms; a dead leader is replaced after about this long.")
        long haSessionTimeoutMs() default 10_000;
    }

    private volatile ProtocolMaster master;
    private ServiceRegistration<?> servlet;
    /** The wire's servlet: how long its posts took, for {@code granary:wire}. */
    private EndpointServlet endpoint;
    private volatile ServiceRegistration<?> commands;
    private volatile ServiceRegistration<?> monitor;
    private ServiceRegistration<?> leaderLease;
    private MasterElection election;
    private HaGate gate;
    private BundleContext context;

    @Reference
    private Scheduler scheduler;

    /** The recovery engine (bundle granary.recovery), wired like the policies: the window a started master listens for. */
    @Reference
    private Recovery recovery;

    @Activate
    void activate(BundleContext context, Config config) throws IOException {
        if ("false".equals(context.getProperty(HTTP_ENABLE)) && !"true".equals(context.getProperty(HTTPS_ENABLE))) {
            return; // the runtime serves no HTTP (--listen=off): no peer can reach a master side
        }
        this.context = context;
        Path secret = Path.of(config.secretFile()).toAbsolutePath();
        Tokens tokens = Tokens.fromFile(secret);
        String exposed = Tokens.exposure(secret);
        if (exposed != null) {
            System.err.println("granary: warning: the token secret " + exposed);
        }
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("osgi.http.whiteboard.servlet.pattern", "/protocol/v1/*");
        props.put("osgi.http.whiteboard.servlet.asyncSupported", Boolean.TRUE);
        props.put("osgi.http.whiteboard.servlet.name", "granary-protocol");
        if (config.zk().isBlank()) {
            // a single master: serves from the start, its start time as its incarnation
            leaderLease = context.registerService(LeaderLease.class, LeaderLease.ALWAYS, null);
            master = newMaster(tokens, config, System.currentTimeMillis(), LeaderLease.ALWAYS);
            endpoint = new EndpointServlet(master);
            servlet = context.registerService(Servlet.class, endpoint, props);
            registerCommands(master);
            registerMonitor(master);
            return;
        }
        HaSettings ha;
        try {
            ha = new HaSettings(config.zk(), config.haCluster(), advertise(context, config),
                    Duration.ofMillis(config.haSessionTimeoutMs()), Duration.ofMillis(Math.min(5_000, config.haSessionTimeoutMs())));
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("Config Admin PID " + PID + " (--zk, --ha-cluster, --advertise): "
                    + ex.getMessage(), ex);
        }
        MasterElection[] holder = new MasterElection[1];
        gate = new HaGate(config.name(), ha.advertise(),
                () -> holder[0] == null ? null : holder[0].leader().map(LeaderInfo::url).orElse(null));
        LeaderLease[] lease = new LeaderLease[1];
        election = new MasterElection(ha, new Leadership() {
            @Override
            public void elected(long epoch) {
                // A new leader starts empty, with the epoch as its incarnation, and opens its recovery
                // window (docs/recovery.md): it rebuilds from the agents' caps and job masters' requests.
                ProtocolMaster m = newMaster(tokens, config, epoch, lease[0]);
                master = m;
                gate.lead(m);
                registerCommands(m);
                registerMonitor(m);
                System.err.println("granary: master " + ha.advertise() + " leads cluster " + ha.cluster()
                        + " with epoch " + epoch);
            }

            @Override
            public void deposed(String reason) {
                stepDown(ha, reason);
            }
        }, System::currentTimeMillis);
        holder[0] = election;
        lease[0] = new ElectionLease(election.lease(), gate, ha.advertise(), ha.cluster());
        leaderLease = context.registerService(LeaderLease.class, lease[0], null);
        endpoint = new EndpointServlet(gate);
        servlet = context.registerService(Servlet.class, endpoint, props);
        System.err.println("granary: master " + ha.advertise() + " is a standby of cluster " + ha.cluster()
                + " (ZooKeeper " + ha.connectString() + ")");
        try {
            election.start();
        } catch (Exception ex) {
            throw new IOException("cannot join the election of cluster " + ha.cluster() + " at ZooKeeper "
                    + ha.connectString() + ": " + ex.getMessage(), ex);
        }
    }

    private ProtocolMaster newMaster(Tokens tokens, Config config, long incarnation, LeaderLease lease) {
        MasterOptions d = MasterOptions.defaults();
        MasterOptions options = new MasterOptions(config.name(), incarnation,
                Duration.ofSeconds(config.agentTimeoutSeconds()), Duration.ofSeconds(config.jobMasterTimeoutSeconds()),
                d.maxPlacements(), d.engineTimeout()).withLease(lease);
        return new ProtocolMaster(scheduler, tokens, options, Clock.system(), recovery);
    }

    private void registerCommands(ProtocolMaster m) {
        Hashtable<String, Object> cmd = new Hashtable<>();
        cmd.put("osgi.command.scope", "granary");
        cmd.put("osgi.command.function", new String[] {"agents", "jobmasters", "wire", "recovery"});
        EndpointServlet e = endpoint;
        commands = context.registerService(PeerCommands.class, new PeerCommands(m, () -> e == null ? "" : " " + e.postTimes()), cmd);
    }

    /** Under its API interface only: the implementation class as a second type hid services on Felix. */
    private void registerMonitor(ProtocolMaster m) {
        monitor = context.registerService(MasterMonitor.class, m, null);
    }

    /**
     * Deposed: stop serving before anything else, then halt. The engine's state lives in this JVM
     * and the master keeps no checkpoint of its decisions, so the only clean way back is a fresh process,
     * which a supervisor starts as a standby.
     */
    private void stepDown(HaSettings ha, String reason) {
        ProtocolMaster m = gate.stop();
        System.err.println("granary: master " + ha.advertise() + " stepped down as leader of cluster " + ha.cluster()
                + ": " + reason + "; exiting with code " + EXIT_STEPPED_DOWN + " (restart it: it becomes a standby)");
        System.err.flush();
        if (m != null) {
            try {
                m.close();
            } catch (RuntimeException ex) {
                // halting anyway
            }
        }
        Runtime.getRuntime().halt(EXIT_STEPPED_DOWN);
    }

    /** {@code advertise}, or {@code http(s)://HOST:PORT} of the HTTP server if its port is fixed. */
    private static URI advertise(BundleContext context, Config config) {
        if (!config.advertise().isBlank()) {
            try {
                return URI.create(config.advertise().trim());
            } catch (IllegalArgumentException ex) {
                throw new IllegalArgumentException("advertise '" + config.advertise() + "' is not a URL: " + ex.getMessage(), ex);
            }
        }
        boolean tls = "true".equals(context.getProperty(HTTPS_ENABLE));
        String host = context.getProperty("org.apache.felix.http.host");
        String port = context.getProperty(tls ? "org.osgi.service.http.port.secure" : "org.osgi.service.http.port");
        if (host == null || port == null || port.equals("0") || host.equals("0.0.0.0") || host.equals("::")) {
            throw new IllegalArgumentException("advertise is not set and the listen address (" + host + ":" + port
                    + ") is not one peers can use: give --advertise=http://HOST:PORT");
        }
        return URI.create((tls ? "https" : "http") + "://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port);
    }

    @Deactivate
    void deactivate() {
        if (election != null) {
            election.close();
        }
        if (commands != null) {
            unregister(commands);
        }
        if (monitor != null) {
            unregister(monitor);
        }
        if (servlet != null) {
            unregister(servlet);
        }
        if (leaderLease != null) {
            unregister(leaderLease);
        }
        if (gate != null) {
            gate.stop();
        }
        if (master != null) {
            master.close();
        }
    }

    private static void unregister(ServiceRegistration<?> r) {
        try {
            r.unregister();
        } catch (IllegalStateException ex) {
            // gone with the bundle already
        }
    }

    /**
     * {@code granary:agents} and {@code granary:jobmasters}: one {@code key=value} line per peer;
     * {@code granary:wire} and {@code granary:recovery}: one line for the protocol side.
     */
    public static final class PeerCommands {
        private final ProtocolMaster master;
        private final java.util.function.Supplier<String> postTimes;

        PeerCommands(ProtocolMaster master, java.util.function.Supplier<String> postTimes) {
            this.master = master;
            this.postTimes = postTimes;
        }

        /** Every agent: node, state, incarnation, last seen, caps, slots, workers, endpoint. */
        public String agents() {
            return lines(master.agents(), "no agents have registered");
        }

        /** Every job master: id, state, incarnation, last seen, jobs, units, slots. */
        public String jobmasters() {
            return lines(master.jobMasters(), "no job masters have connected");
        }

        /**
         * The protocol side in one line: peers, how long agents' grants took from decision to the
         * cap that carries them leaving the master (p50 / p99 over the last caps), the same for news
         * to job masters in hints, how long peers' posts took from arriving to their ack (p50 /
         * p99 over the last posts), and how many posts came over HTTP/2.
         */
        public String wire() {
            long[] d = master.deliveryLatency();
            long[] h = master.hintLatency();
            long live = master.agents().stream().filter(p -> p.state().equals("live")).count();
            return "agents=" + master.agents().size() + " live=" + live + " jobmasters=" + master.jobMasters().size()
                    + " deliveries=" + d[0] + " deliveryP50=" + d[1] + "ms deliveryP99=" + d[2] + "ms"
                    + " hints=" + h[0] + " hintP50=" + h[1] + "ms hintP99=" + h[2] + "ms" + postTimes.get();
        }

        /**
         * Where the master is in its start after a restart (window open, rebuilding, serving), when
         * each step began and ended, and the engine's nodes, jobs and granted slots: one line.
         */
        public String recovery() {
            return master.recoveryStatus().line();
        }

        private static String lines(List<PeerStatus> peers, String none) {
            if (peers.isEmpty()) {
                return none;
            }
            StringBuilder b = new StringBuilder();
            for (PeerStatus p : peers) {
                b.append(b.length() == 0 ? "" : System.lineSeparator()).append(p.line());
            }
            return b.toString();
        }
    }
}
