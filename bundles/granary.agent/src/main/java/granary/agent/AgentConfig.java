package granary.agent;

import granary.api.model.Resources;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Everything an agent is told at start, read by {@link CommandLine} (see README.md for the options).
 *
 * @param master           the master's base URL
 * @param node             this node's name (the agent's id on the wire)
 * @param room             where the node stands, for locality
 * @param labels           the node's labels
 * @param capacity         what the node offers in total
 * @param token            the agent's token ({@code agent/<node>.<mac>})
 * @param workDir          checkpoint, logs and default working directories of workers
 * @param listen           where the plan endpoint listens (port 0: a free one)
 * @param advertise        the base URL registered for the plan endpoint, or null for the listening address
 * @param heartbeat        period of heartbeats when nothing happens
 * @param registerRetries  how often the first registration is retried before the agent gives up (exit 4)
 * @param maxWorkers       most workers running at once on this agent, whatever the caps
 * @param maxPending       most launches kept while they wait for a cap
 * @param pendingExpiry    how long a kept launch waits for its cap before it is dropped
 * @param stopGrace        how long a stopped worker has between destroy and destroyForcibly
 * @param pollWait         how long one inbox poll waits at the master
 * @param keepWorkersOnExit leave workers running when the agent exits (default: stop them)
 * @param otherMasters     more masters of the same cluster (high availability, docs/ha.md): the
 *                         agent talks to whichever leads, starting with {@code master}
 * @param exitRetention    how long a worker's exit is remembered after the master has it: a launch
 *                         of that slot again is answered with the exit (docs/recovery.md)
 * @param pollPause        the pause after an inbox poll that brought nothing (0 with long polls)
 * @param requestTimeout   how long one call to the master may take before it is made again (an
 *                         inbox poll waits its {@code pollWait} on top)
 * @param workRoots        directories besides {@code workDir} a plan may name as a worker's working
 *                         directory (docs/security.md, "Workers stay in their place")
 * @param tls              the plan endpoint serves HTTPS with this key; null: plain HTTP
 * @param workers          how workers are held to their slots, as whom they run, and when the node
 *                         calls itself unhealthy (docs/agent.md)
 */
public record AgentConfig(URI master, String node, String room, Map<String, String> labels, Resources capacity,
                          String token, Path workDir, InetSocketAddress listen, URI advertise, Duration heartbeat,
                          int registerRetries, int maxWorkers, int maxPending, Duration pendingExpiry,
                          Duration stopGrace, Duration pollWait, boolean keepWorkersOnExit,
                          List<URI> otherMasters, Duration exitRetention, Duration pollPause, Duration requestTimeout,
                          List<Path> workRoots, Tls tls, WorkerPolicy workers) {

    /**
     * The plan endpoint's key (docs/security.md, "TLS for plans").
     *
     * @param keystore             the key and certificate, PKCS12 or JKS
     * @param keystorePasswordFile a file whose first line is the keystore's password
     * @param keyPasswordFile      a file whose first line is the key's password; null: the keystore's
     */
    public record Tls(Path keystore, Path keystorePasswordFile, Path keyPasswordFile) {
        public Tls {
            Objects.requireNonNull(keystore, "keystore");
            Objects.requireNonNull(keystorePasswordFile, "keystorePasswordFile");
        }
    }

    public static final int DEFAULT_MAX_WORKERS = 1024;
    public static final int DEFAULT_MAX_PENDING = 10_000;

    public AgentConfig {
        Objects.requireNonNull(master, "master");
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(room, "room");
        Objects.requireNonNull(capacity, "capacity");
        Objects.requireNonNull(token, "token");
        Objects.requireNonNull(workDir, "workDir");
        Objects.requireNonNull(listen, "listen");
        labels = Map.copyOf(new TreeMap<>(labels));
        otherMasters = List.copyOf(otherMasters);
        Objects.requireNonNull(exitRetention, "exitRetention");
        Objects.requireNonNull(pollPause, "pollPause");
        Objects.requireNonNull(requestTimeout, "requestTimeout");
        workRoots = List.copyOf(workRoots);
        Objects.requireNonNull(workers, "workers");
    }

    /** How long an exit is remembered by default. */
    public static final Duration DEFAULT_EXIT_RETENTION = Duration.ofMinutes(30);

    /** Every master URL given, {@code master} first. */
    public List<URI> masters() {
        List<URI> all = new ArrayList<>();
        all.add(master);
        all.addAll(otherMasters);
        return List.copyOf(all);
    }

    /** A configuration with the defaults for everything but what identifies the node and its master. */
    public static AgentConfig of(URI master, String node, Resources capacity, String token, Path workDir) {
        return new AgentConfig(master, node, "default", Map.of(), capacity, token, workDir,
                new InetSocketAddress("127.0.0.1", 0), null, Duration.ofSeconds(1), 5, DEFAULT_MAX_WORKERS,
                DEFAULT_MAX_PENDING, Duration.ofMinutes(5), Duration.ofSeconds(10), Duration.ofSeconds(25), false, List.of(),
                DEFAULT_EXIT_RETENTION, Duration.ZERO, Duration.ofSeconds(10), List.of(), null, WorkerPolicy.EMBEDDED);
    }

    public AgentConfig withHeartbeat(Duration d) {
        return new AgentConfig(master, node, room, labels, capacity, token, workDir, listen, advertise, d,
                registerRetries, maxWorkers, maxPending, pendingExpiry, stopGrace, pollWait, keepWorkersOnExit, otherMasters, exitRetention, pollPause, requestTimeout, workRoots, tls, workers);
    }

    public AgentConfig withPollWait(Duration d) {
        return new AgentConfig(master, node, room, labels, capacity, token, workDir, listen, advertise, heartbeat,
                registerRetries, maxWorkers, maxPending, pendingExpiry, stopGrace, d, keepWorkersOnExit, otherMasters, exitRetention, pollPause, requestTimeout, workRoots, tls, workers);
    }

    public AgentConfig withStopGrace(Duration d) {
        return new AgentConfig(master, node, room, labels, capacity, token, workDir, listen, advertise, heartbeat,
                registerRetries, maxWorkers, maxPending, pendingExpiry, d, pollWait, keepWorkersOnExit, otherMasters, exitRetention, pollPause, requestTimeout, workRoots, tls, workers);
    }

    public AgentConfig withRegisterRetries(int n) {
        return new AgentConfig(master, node, room, labels, capacity, token, workDir, listen, advertise, heartbeat,
                n, maxWorkers, maxPending, pendingExpiry, stopGrace, pollWait, keepWorkersOnExit, otherMasters, exitRetention, pollPause, requestTimeout, workRoots, tls, workers);
    }

    public AgentConfig withPollPause(Duration d) {
        return new AgentConfig(master, node, room, labels, capacity, token, workDir, listen, advertise, heartbeat,
                registerRetries, maxWorkers, maxPending, pendingExpiry, stopGrace, pollWait, keepWorkersOnExit, otherMasters,
                exitRetention, d, requestTimeout, workRoots, tls, workers);
    }

    public AgentConfig withExitRetention(Duration d) {
        return new AgentConfig(master, node, room, labels, capacity, token, workDir, listen, advertise, heartbeat,
                registerRetries, maxWorkers, maxPending, pendingExpiry, stopGrace, pollWait, keepWorkersOnExit, otherMasters,
                d, pollPause, requestTimeout, workRoots, tls, workers);
    }

    public AgentConfig withRequestTimeout(Duration d) {
        return new AgentConfig(master, node, room, labels, capacity, token, workDir, listen, advertise, heartbeat,
                registerRetries, maxWorkers, maxPending, pendingExpiry, stopGrace, pollWait, keepWorkersOnExit, otherMasters,
                exitRetention, pollPause, d, workRoots, tls, workers);
    }

    public AgentConfig withPending(int max, Duration expiry) {
        return new AgentConfig(master, node, room, labels, capacity, token, workDir, listen, advertise, heartbeat,
                registerRetries, maxWorkers, max, expiry, stopGrace, pollWait, keepWorkersOnExit, otherMasters, exitRetention, pollPause, requestTimeout, workRoots, tls, workers);
    }

    /** The same agent with another worker policy. */
    public AgentConfig withWorkers(WorkerPolicy w) {
        return new AgentConfig(master, node, room, labels, capacity, token, workDir, listen, advertise, heartbeat,
                registerRetries, maxWorkers, maxPending, pendingExpiry, stopGrace, pollWait, keepWorkersOnExit, otherMasters,
                exitRetention, pollPause, requestTimeout, workRoots, tls, w);
    }
}
