package granary.master.osgi;

import granary.protocol.WireCodec;
import granary.protocol.link.Endpoint;
import granary.protocol.link.Paths;
import granary.protocol.link.Reply;
import granary.protocol.link.Standby;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;

/**
 * Carries an {@link Endpoint} on a servlet container: {@code POST .../messages} and
 * {@code GET .../inbox?after=N&wait=MS}. Inbox polls are asynchronous, so a waiting poll holds no
 * thread (ten thousand agents may each have one parked).
 */
final class EndpointServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private final transient Endpoint endpoint;
    private final transient HaGate gate;

    EndpointServlet(Endpoint endpoint) {
        this.endpoint = endpoint;
        this.gate = null;
    }

    /** Under high availability: a standby's refusals carry the leader's URL in a header too. */
    EndpointServlet(HaGate gate) {
        this.endpoint = gate;
        this.gate = gate;
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        if (!Paths.MESSAGES.endsWith(String.valueOf(req.getPathInfo()))) {
            resp.sendError(404);
            return;
        }
        byte[] body;
        try (InputStream in = req.getInputStream()) {
            body = in.readNBytes(WireCodec.MAX_MESSAGE_BYTES + 1);
        }
        write(resp, gate, endpoint.post(req.getHeader("Authorization"), body, req.getRemoteAddr() + ":" + req.getRemotePort()));
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        if (!Paths.INBOX.endsWith(String.valueOf(req.getPathInfo()))) {
            resp.sendError(404);
            return;
        }
        long after = number(req.getParameter("after"));
        long wait = Math.min(number(req.getParameter("wait")), Paths.MAX_WAIT_MILLIS);
        AsyncContext async = req.startAsync();
        async.setTimeout(wait + 10_000);
        long incarnation = number(req.getParameter("incarnation"));
        endpoint.poll(req.getHeader("Authorization"), after, wait, incarnation, req.getRemoteAddr() + ":" + req.getRemotePort())
                .whenComplete((reply, failure) -> {
                    try {
                        write((HttpServletResponse) async.getResponse(), gate, failure == null ? reply : new Reply(503, new byte[0]));
                    } catch (IOException | IllegalStateException ex) {
                        // the peer went away; it polls again
                    } finally {
                        try {
                            async.complete();
                        } catch (IllegalStateException ex) {
                            // timed out and completed by the container already
                        }
                    }
                });
    }

    private static void write(HttpServletResponse resp, HaGate gate, Reply r) throws IOException {
        resp.setStatus(r.status());
        if (gate != null && r.status() == Standby.STATUS) {
            java.net.URI leader = gate.leaderToName();
            if (leader != null) {
                resp.setHeader(Standby.LEADER_HEADER, leader.toString());
            }
        }
        if (r.body().length > 0) {
            resp.setContentType(Reply.CONTENT_TYPE);
            resp.setContentLength(r.body().length);
            resp.getOutputStream().write(r.body());
        }
    }

    private static long number(String v) {
        try {
            return v == null ? 0 : Math.max(0, Long.parseLong(v));
        } catch (NumberFormatException ex) {
            return 0;
        }
    }
}
