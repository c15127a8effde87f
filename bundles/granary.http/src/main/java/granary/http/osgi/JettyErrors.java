package granary.http.osgi;

import granary.http.jetty.ProblemErrorHandler;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.felix.http.jetty.ConnectorFactory;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.AutoLock;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * Puts {@link ProblemErrorHandler} on every Jetty server Felix HTTP runs, so that the errors Jetty
 * answers before any servlet are problem JSON too. Felix HTTP hands its server to the connector
 * factories it finds, the one extension point that reaches the server itself; the connector given
 * back is an in-memory one that listens on no port. When this bundle stops, each server gets back the
 * handler it had. It also turns Jetty's per-connection header cache off ({@link #withoutHeaderCache})
 * and lets every plain HTTP connector speak HTTP/2 too ({@link #withH2c}).
 */
@Component(service = ConnectorFactory.class)
public final class JettyErrors implements ConnectorFactory {

    private final Map<Server, Request.Handler> before = new IdentityHashMap<>();

    @Override
    public synchronized Connector createConnector(Server server) {
        before.putIfAbsent(server, server.getErrorHandler());
        server.setErrorHandler(new ProblemErrorHandler());
        withoutHeaderCache(server); // the connectors there now, and those added before it starts
        withH2c(server);
        server.addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle event) {
                withoutHeaderCache(server);
                withH2c(server);
            }
        });
        return new LocalConnector(server);
    }

    /**
     * Jetty keeps a header cache per connection (a 1,024-entry trie, about 100 KB): with a long poll
     * and a post open for each of 5,000 agents that is 1 GB of the master's heap, for peers that
     * send three headers (benchmarks/RESULTS.md, "Wire"). Off on every HTTP connector of the server.
     */
    static void withoutHeaderCache(Server server) {
        for (Connector c : server.getConnectors()) {
            for (ConnectionFactory f : c.getConnectionFactories()) {
                if (f instanceof HttpConfiguration.ConnectionFactory h) {
                    h.getHttpConfiguration().setHeaderCacheSize(0);
                }
            }
        }
    }

    /** Most streams one HTTP/2 connection may have open at once: a peer needs two (a post and its parked poll); a load generator sharing a connection among peers, a few dozen. */
    static final int MAX_STREAMS_PER_CONNECTION = 128;

    /**
     * HTTP/2 in clear text (h2c, with prior knowledge or upgraded from HTTP/1.1) on every plain
     * HTTP/1.1 connector that has not got it: a peer that speaks HTTP/2 keeps one connection for its
     * posts and its parked poll, instead of two (docs/protocol.md, "Transport"). HTTP/1.1 clients
     * are served as before on the same port; TLS connectors get HTTP/2 from Felix HTTP's own setting
     * ({@code org.apache.felix.http2.enable}), negotiated by ALPN.
     *
     * <p>Felix HTTP starts its connectors before it asks the connector factories, and Jetty lets no
     * protocol be added to a running connector. Stopping it to add one would let its port go for a
     * moment, and a port Jetty picked (port 0) can be taken by any other process's connection in
     * that moment (it happened in the suite). So a running connector gets h2c in its table of
     * protocols, under the connector's own lock, which is where an HTTP/1.1 connection looks for it
     * when a client opens with the HTTP/2 preface or asks to upgrade. Should that table not be
     * reachable (another Jetty), the connector stays HTTP/1.1 only, and says so on standard error.
     */
    static void withH2c(Server server) {
        for (Connector c : server.getConnectors()) {
            if (!(c instanceof ServerConnector sc) || sc.getConnectionFactory(SslConnectionFactory.class) != null
                    || sc.getConnectionFactory("h2c") != null) {
                continue;
            }
            HttpConnectionFactory http = sc.getConnectionFactory(HttpConnectionFactory.class);
            if (http == null) {
                continue;
            }
            HTTP2CServerConnectionFactory h2c = new HTTP2CServerConnectionFactory(http.getHttpConfiguration());
            h2c.setMaxConcurrentStreams(MAX_STREAMS_PER_CONNECTION);
            try {
                if (sc.isRunning()) {
                    addToRunning(sc, h2c);
                } else {
                    sc.addConnectionFactory(h2c);
                }
            } catch (Exception ex) {
                System.err.println("granary http: the port " + sc.getLocalPort() + " speaks HTTP/1.1 only: cannot add HTTP/2 ("
                        + ex + ")");
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static void addToRunning(ServerConnector sc, HTTP2CServerConnectionFactory h2c) throws Exception {
        java.lang.reflect.Field factories = AbstractConnector.class.getDeclaredField("_factories");
        java.lang.reflect.Field lock = AbstractConnector.class.getDeclaredField("_lock");
        factories.setAccessible(true);
        lock.setAccessible(true);
        sc.addBean(h2c, true);   // stopped with the connector from now on
        if (!h2c.isRunning()) {
            h2c.start();
        }
        try (AutoLock held = ((AutoLock) lock.get(sc)).lock()) {
            ((Map<String, ConnectionFactory>) factories.get(sc)).put("h2c", h2c);
        }
    }

    @Deactivate
    synchronized void deactivate() {
        before.forEach((server, handler) -> {
            if (server.getErrorHandler() instanceof ProblemErrorHandler) {
                server.setErrorHandler(handler);
            }
        });
        before.clear();
    }
}
