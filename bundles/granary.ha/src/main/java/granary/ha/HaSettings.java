package granary.ha;

import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * Where and as whom a master takes part in the election.
 *
 * @param connectString     the ZooKeeper ensemble, {@code host:port[,host:port...]}
 * @param cluster           the cluster's name; its znodes live under {@code /granary/<cluster>}
 * @param advertise         this master's protocol URL as peers reach it (published while it leads)
 * @param sessionTimeout    the ZooKeeper session timeout: how long a dead leader holds the leadership
 * @param connectionTimeout how long one connection attempt to the ensemble may take
 */
public record HaSettings(String connectString, String cluster, URI advertise, Duration sessionTimeout,
                         Duration connectionTimeout) {

    /** The session timeout unless configured: a killed leader is replaced within about this long. */
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(10);

    public HaSettings {
        Objects.requireNonNull(connectString, "connectString");
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(advertise, "advertise");
        Objects.requireNonNull(sessionTimeout, "sessionTimeout");
        Objects.requireNonNull(connectionTimeout, "connectionTimeout");
        if (connectString.isBlank()) {
            throw new IllegalArgumentException("ZooKeeper connect string: is empty; expected host:port[,host:port...]");
        }
        for (String hostPort : connectString.split(",")) {
            String hp = hostPort.contains("/") ? hostPort.substring(0, hostPort.indexOf('/')) : hostPort;
            int colon = hp.lastIndexOf(':');
            if (colon <= 0 || !hp.substring(colon + 1).matches("[0-9]{1,5}")) {
                throw new IllegalArgumentException("ZooKeeper connect string '" + connectString + "': '" + hostPort
                        + "' is not host:port");
            }
        }
        if (!cluster.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("HA cluster name '" + cluster
                    + "': expected 1 to 64 letters, digits, '.', '_' or '-' (it becomes a znode name)");
        }
        if (advertise.getScheme() == null || !(advertise.getScheme().equals("http") || advertise.getScheme().equals("https"))
                || advertise.getHost() == null || advertise.getPort() <= 0) {
            throw new IllegalArgumentException("advertised URL '" + advertise
                    + "': expected http://HOST:PORT or https://HOST:PORT, the address peers reach this master at");
        }
        if (sessionTimeout.toMillis() < 1_000 || connectionTimeout.toMillis() < 100) {
            throw new IllegalArgumentException("ZooKeeper session timeout " + sessionTimeout.toMillis()
                    + " ms / connection timeout " + connectionTimeout.toMillis()
                    + " ms: expected at least 1000 ms / 100 ms");
        }
    }

    public static HaSettings of(String connectString, String cluster, URI advertise) {
        return new HaSettings(connectString, cluster, advertise, DEFAULT_SESSION_TIMEOUT, Duration.ofSeconds(5));
    }

    public HaSettings withSessionTimeout(Duration d) {
        return new HaSettings(connectString, cluster, advertise, d, connectionTimeout);
    }

    /**
     * How long before the session could expire at the server the leader's {@link Lease} lapses: a
     * quarter of the session timeout (docs/ha.md, "The lease"). It covers a touch the ensemble
     * relays half a tick late (a tick is at most half the session timeout), clock rates, and the
     * instant between the last check and a message leaving.
     */
    public Duration leaseMargin() {
        return sessionTimeout.dividedBy(4);
    }

    /** How often the leader renews its lease with a round trip: a tenth of the session timeout, at least 50 ms. */
    public Duration leaseRenewal() {
        Duration d = sessionTimeout.dividedBy(10);
        return d.toMillis() < 50 ? Duration.ofMillis(50) : d;
    }

    /** {@code /granary/<cluster>}: the parent of every znode of this cluster. */
    public String root() {
        return "/granary/" + cluster;
    }
}
