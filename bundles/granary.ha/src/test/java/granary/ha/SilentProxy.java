package granary.ha;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder on a free loopback port in front of a ZooKeeper server, which can fall silent:
 * then it drops every byte both ways and keeps the connections open, as a partition does. The
 * server goes on running and expires the client's session one session timeout after the last
 * request reached it. Notes the time (System.nanoTime) before it forwarded the last bytes from a
 * client: no request of the client can touch its session at the server before that.
 */
final class SilentProxy implements AutoCloseable {

    private final ServerSocket listener;
    private final int upstream;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private boolean silent;
    private volatile long lastForwardedToServer = System.nanoTime();
    private volatile boolean closed;

    SilentProxy(int upstreamPort) throws IOException {
        this.upstream = upstreamPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread accept = new Thread(this::accept, "silent-proxy accept");
        accept.setDaemon(true);
        accept.start();
    }

    String connectString() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    /** From now on nothing passes, either way; bytes being forwarded when it is called are through when it returns. */
    synchronized void fallSilent() {
        silent = true;
    }

    /** The nanoTime read before the last bytes from a client were forwarded to the server. */
    long lastForwardedToServer() {
        return lastForwardedToServer;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), upstream);
                sockets.add(client);
                sockets.add(server);
                pump(client, server, true);
                pump(server, client, false);
            } catch (IOException ex) {
                return; // closed
            }
        }
    }

    private void pump(Socket from, Socket to, boolean toServer) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[8192];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    forward(out, buf, n, toServer);
                }
            } catch (IOException ex) {
                // one side closed
            }
            close(from);
            close(to);
        }, "silent-proxy pump");
        t.setDaemon(true);
        t.start();
    }

    private synchronized void forward(OutputStream out, byte[] buf, int n, boolean toServer) throws IOException {
        if (silent) {
            return; // dropped: the peer hears nothing, the connection stays open
        }
        if (toServer) {
            lastForwardedToServer = System.nanoTime();
        }
        out.write(buf, 0, n);
        out.flush();
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException ex) {
            // closed already
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        sockets.forEach(SilentProxy::close);
    }
}
