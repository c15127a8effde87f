package granary.master.osgi;

import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/** An endpoint servlet on a real Jetty, on 127.0.0.1 and a free port, under the protocol's paths (tests). */
final class ServletJetty implements AutoCloseable {

    private final Server server;
    final int port;

    ServletJetty(EndpointServlet servlet) throws Exception {
        this(servlet, new Server(), null);
    }

    /** On {@code threads}, with {@code other} beside the endpoint at {@code /other/*} (tests of the threads). */
    ServletJetty(EndpointServlet servlet, QueuedThreadPool threads, jakarta.servlet.http.HttpServlet other) throws Exception {
        this(servlet, new Server(threads), other);
    }

    private ServletJetty(EndpointServlet servlet, Server server, jakarta.servlet.http.HttpServlet other) throws Exception {
        this.server = server;
        ServerConnector c = new ServerConnector(server, 1, 1);
        c.setHost("127.0.0.1");
        c.setPort(0);
        server.addConnector(c);
        ServletContextHandler ctx = new ServletContextHandler("/");
        ServletHolder h = new ServletHolder(servlet);
        h.setAsyncSupported(true);
        ctx.addServlet(h, "/protocol/v1/*");
        if (other != null) {
            ctx.addServlet(new ServletHolder(other), "/other/*");
        }
        server.setHandler(ctx);
        server.start();
        port = c.getLocalPort();
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
