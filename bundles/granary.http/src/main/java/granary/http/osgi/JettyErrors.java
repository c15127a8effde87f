package granary.http.osgi;

import granary.http.jetty.ProblemErrorHandler;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.felix.http.jetty.ConnectorFactory;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConfiguration;
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
 * handler it had. It also turns Jetty's per-connection header cache off ({@link #withoutHeaderCache}).
 */
@Component(service = ConnectorFactory.class)
public final class JettyErrors implements ConnectorFactory {

    private final Map<Server, Request.Handler> before = new IdentityHashMap<>();

    @Override
    public synchronized Connector createConnector(Server server) {
        before.putIfAbsent(server, server.getErrorHandler());
        server.setErrorHandler(new ProblemErrorHandler());
        withoutHeaderCache(server); // the connectors there now, and those added before it starts
        server.addEventListener(new LifeCycle.Listener() {
            @Override
            public void lifeCycleStarting(LifeCycle event) {
                withoutHeaderCache(server);
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
