package granary.master.osgi;

import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/** An endpoint servlet on a real Jetty, on 127.0.0.1 and a free port, under the protocol's paths (tests). */
final class ServletJetty implements AutoCloseable {

    private final Server server = new Server();
    final int port;

    ServletJetty(EndpointServlet servlet) throws Exception {
        ServerConnector c = new ServerConnector(server);
        c.setHost("127.0.0.1");
        c.setPort(0);
        server.addConnector(c);
        ServletContextHandler ctx = new ServletContextHandler("/");
        ServletHolder h = new ServletHolder(servlet);
        h.setAsyncSupported(true);
        ctx.addServlet(h, "/protocol/v1/*");
        server.setHandler(ctx);
        server.start();
        port = c.getLocalPort();
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
