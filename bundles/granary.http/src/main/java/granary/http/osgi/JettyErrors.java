package granary.http.osgi;

import granary.http.jetty.ProblemErrorHandler;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.felix.http.jetty.ConnectorFactory;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;
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
     * <p>Felix HTTP starts its connectors before it asks the connector factories, and a running
     * connector takes no new protocol: such a connector is stopped, given h2c and started again on
     * the port it had (the port it was given, not 0 again). That happens once, while the runtime
     * starts its bundles (this factory is registered then), before the runtime says where it
     * listens; a connection open at that moment is closed and its client connects again.
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
            boolean running = sc.isRunning();
            try {
                if (running) {
                    int port = sc.getLocalPort();
                    sc.stop();
                    if (port > 0) {
                        sc.setPort(port);
                    }
                }
                sc.addConnectionFactory(h2c);
            } catch (Exception ex) {
                System.err.println("granary http: cannot add HTTP/2 to " + sc.getHost() + ":" + sc.getPort() + ": " + ex.getMessage());
            } finally {
                if (running && !sc.isRunning()) {
                    try {
                        sc.start();
                    } catch (Exception ex) {
                        System.err.println("granary http: cannot listen again on " + sc.getHost() + ":" + sc.getPort() + ": " + ex.getMessage());
                    }
                }
            }
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
