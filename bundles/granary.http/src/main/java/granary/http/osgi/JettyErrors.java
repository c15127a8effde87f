package granary.http.osgi;

import granary.http.jetty.ProblemErrorHandler;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.felix.http.jetty.ConnectorFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;

/**
 * Puts {@link ProblemErrorHandler} on every Jetty server Felix HTTP runs, so that the errors Jetty
 * answers before any servlet are problem JSON too. Felix HTTP hands its server to the connector
 * factories it finds, the one extension point that reaches the server itself; the connector given
 * back is an in-memory one that listens on no port. When this bundle stops, each server gets back the
 * handler it had.
 */
@Component(service = ConnectorFactory.class)
public final class JettyErrors implements ConnectorFactory {

    private final Map<Server, Request.Handler> before = new IdentityHashMap<>();

    @Override
    public synchronized Connector createConnector(Server server) {
        before.putIfAbsent(server, server.getErrorHandler());
        server.setErrorHandler(new ProblemErrorHandler());
        return new LocalConnector(server);
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
