package granary.master.osgi;

import granary.api.event.Scheduler;
import granary.api.model.Clock;
import granary.master.MasterOptions;
import granary.master.PeerStatus;
import granary.master.ProtocolMaster;
import granary.recovery.Recovery;
import granary.protocol.link.Tokens;
import jakarta.servlet.Servlet;
import java.io.IOException;
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
 */
@Component(immediate = true, service = {}, configurationPid = MasterComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = MasterComponent.Config.class)
public class MasterComponent {

    public static final String PID = "granary.master";

    /** Felix HTTP's switch, which the launcher's {@code --listen=off} turns off. */
    static final String HTTP_ENABLE = "org.apache.felix.http.enable";
    /** Its HTTPS switch, on with the launcher's {@code --keystore}. */
    static final String HTTPS_ENABLE = "org.apache.felix.https.enable";

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
    }

    private ProtocolMaster master;
    private ServiceRegistration<?> servlet;
    private ServiceRegistration<?> commands;

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
        Tokens tokens = Tokens.fromFile(Path.of(config.secretFile()).toAbsolutePath());
        MasterOptions options = MasterOptions.defaults();
        options = new MasterOptions(config.name(), System.currentTimeMillis(),
                Duration.ofSeconds(config.agentTimeoutSeconds()), Duration.ofSeconds(config.jobMasterTimeoutSeconds()),
                options.maxPlacements(), options.engineTimeout());
        master = new ProtocolMaster(scheduler, tokens, options, Clock.system(), recovery);
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("osgi.http.whiteboard.servlet.pattern", "/protocol/v1/*");
        props.put("osgi.http.whiteboard.servlet.asyncSupported", Boolean.TRUE);
        props.put("osgi.http.whiteboard.servlet.name", "granary-protocol");
        servlet = context.registerService(Servlet.class, new EndpointServlet(master), props);
        Hashtable<String, Object> cmd = new Hashtable<>();
        cmd.put("osgi.command.scope", "granary");
        cmd.put("osgi.command.function", new String[] {"agents", "jobmasters", "wire"});
        commands = context.registerService(PeerCommands.class, new PeerCommands(master), cmd);
    }

    @Deactivate
    void deactivate() {
        if (master == null) {
            return;
        }
        unregister(commands);
        unregister(servlet);
        master.close();
    }

    private static void unregister(ServiceRegistration<?> r) {
        try {
            r.unregister();
        } catch (IllegalStateException ex) {
            // gone with the bundle already
        }
    }

    /** {@code granary:agents} and {@code granary:jobmasters}: one {@code key=value} line per peer. */
    public static final class PeerCommands {
        private final ProtocolMaster master;

        PeerCommands(ProtocolMaster master) {
            this.master = master;
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
         * The protocol side in one line: peers, and how long grants took from decision to the cap
         * or hint that carries them leaving the master (p50 / p99 over the last deliveries).
         */
        public String wire() {
            long[] d = master.deliveryLatency();
            long live = master.agents().stream().filter(p -> p.state().equals("live")).count();
            return "agents=" + master.agents().size() + " live=" + live + " jobmasters=" + master.jobMasters().size()
                    + " deliveries=" + d[0] + " deliveryP50=" + d[1] + "ms deliveryP99=" + d[2] + "ms";
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
