package granary.master.osgi;

import granary.protocol.WireCodec;
import granary.protocol.link.Endpoint;
import granary.protocol.link.InFlight;
import granary.protocol.link.Paths;
import granary.protocol.link.Reply;
import granary.protocol.link.Standby;
import granary.master.http.AsyncAnswer;
import granary.master.http.AsyncBody;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Carries an {@link Endpoint} on a servlet container: {@code POST .../messages} and
 * {@code GET .../inbox?after=N&wait=MS}. Inbox polls are asynchronous, so a waiting poll holds no
 * thread (ten thousand agents may each have one parked).
 */
final class EndpointServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private final transient Endpoint endpoint;
    private final transient HaGate gate;
    /**
     * Posts and polls each token may have open at once (docs/security.md, "Limits"): a peer has one
     * of each; a few more for a restart's overlap. Past it: 429 at once, the peer's link tries again.
     */
    static final int PER_TOKEN = 4;
    private final transient InFlight posts = new InFlight(PER_TOKEN);
    private final transient InFlight polls = new InFlight(PER_TOKEN);
    /** The peers' own threads: what the master does for a post or a poll runs there, never on Jetty's. */
    private final transient PeerWork work = new PeerWork();
    private final transient PostTimes times = new PostTimes();

    /** The longest a post may take in all, its body and the master's answer; see {@link #BODY_MILLIS}. */
    private final long postMillis;
    /** How much longer than its own wait a poll may take before it is answered 503. */
    private final long pollGraceMillis;

    EndpointServlet(Endpoint endpoint) {
        this(endpoint, null, BODY_MILLIS, POLL_GRACE_MILLIS);
    }

    /** Under high availability: a standby's refusals carry the leader's URL in a header too. */
    EndpointServlet(HaGate gate) {
        this(gate, gate, BODY_MILLIS, POLL_GRACE_MILLIS);
    }

    /** With other time limits (tests). */
    EndpointServlet(Endpoint endpoint, HaGate gate, long postMillis, long pollGraceMillis) {
        this.endpoint = endpoint;
        this.gate = gate;
        this.postMillis = postMillis;
        this.pollGraceMillis = pollGraceMillis;
    }

    /**
     * Routes by path and method: {@code POST .../messages}, {@code GET .../inbox}; another method
     * on either is 405 (naming the one it takes), another path 404, both as problem JSON.
     */
    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String path = String.valueOf(req.getPathInfo());
        String method = req.getMethod();
        boolean messages = Paths.MESSAGES.endsWith(path);
        boolean inbox = Paths.INBOX.endsWith(path);
        if (messages && method.equals("POST")) {
            doPost(req, resp);
        } else if (inbox && method.equals("GET")) {
            doGet(req, resp);
        } else if (messages || inbox) {
            String allowed = messages ? "POST" : "GET";
            resp.setHeader("Allow", allowed);
            problem(resp, 405, "method-not-allowed", method + " is not taken here; " + path + " takes " + allowed);
        } else {
            problem(resp, 404, "not-found", "no protocol resource here; peers post to " + Paths.MESSAGES + " and poll "
                    + Paths.INBOX);
        }
    }

    /** A problem JSON answer (RFC 9457), its detail escaped. */
    private static void problem(HttpServletResponse resp, int status, String type, String detail) throws IOException {
        resp.setStatus(status);
        resp.setContentType("application/problem+json");
        String text = "{\"type\":\"/api/v1/problems/" + type + "\",\"title\":\"" + (status == 404 ? "Not found" : "Method not allowed")
                + "\",\"status\":" + status + ",\"detail\":\"" + granary.api.model.Text.escape(detail).replace("\\", "\\\\")
                        .replace("\"", "\\\"") + "\"}";
        resp.getOutputStream().write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** How long answered posts took at the master (for {@code granary:wire}). */
    String postTimes() {
        return times.line();
    }

    /**
     * A post is authenticated from its headers before a byte of its body is read (a caller without
     * a valid token is answered at once and the connection closed); the body is then read without
     * holding a thread while it comes, up to {@link WireCodec#MAX_MESSAGE_BYTES} + 1 bytes and for at
     * most {@link #BODY_MILLIS} in all (docs/security.md, "Limits").
     */
    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long arrived = System.nanoTime();
        boolean http2 = "HTTP/2.0".equals(req.getProtocol());
        String authorization = req.getHeader("Authorization");
        String remote = req.getRemoteAddr() + ":" + req.getRemotePort();
        Reply refused = endpoint.admit(authorization, remote);
        if (refused != null) {
            resp.setHeader("Connection", "close"); // its body is not read
            write(resp, gate, refused);
            return;
        }
        AtomicBoolean answered = new AtomicBoolean();
        AtomicBoolean whole = new AtomicBoolean();
        AtomicReference<CompletableFuture<Reply>> pending = new AtomicReference<>();
        // read whole, but the master has not answered within the post's time (it is overloaded): 503, and
        // the peer sends again (the session applies a message once); the master then skips the message
        // if it still waits for its turn. A body still coming is AsyncBody's 408.
        AsyncContext async = counted(req, resp, posts, authorization, postMillis, a -> {
            if (whole.get()) {
                late(a, answered);
                withdraw(pending.get());
            }
        });
        if (async == null) {
            return;
        }
        AsyncBody.read(async, WireCodec.MAX_MESSAGE_BYTES, (body, end) -> {
            switch (end) {
                case FAILED -> AsyncBody.complete(async); // the caller went away
                case TIMED_OUT -> timedOut(async);
                // too large: the endpoint says so (413) from the limit + 1 bytes read; the rest is not read
                // checked and decoded on a peers' thread, applied by the master's loop, written back on a peers'
                // thread without waiting for a slow reader (AsyncAnswer)
                default -> {
                    whole.set(true);
                    work.run(async, () -> {
                        if (answered.get()) {
                            return;   // its time passed while it waited for a peers' thread: answered 503 already
                        }
                        CompletableFuture<Reply> f = endpoint.postAsync(authorization, body, remote);
                        pending.set(f);
                        if (answered.get()) {
                            withdraw(f);   // timed out while it was being decoded
                        }
                        f.whenCompleteAsync((reply, failure) -> {
                            answer(async, answered, failure == null ? reply : new Reply(503, new byte[0]), end == AsyncBody.End.TOO_LARGE);
                            times.add(System.nanoTime() - arrived, http2);
                        }, work.executor());
                    });
                }
            }
        });
    }

    /**
     * Tells the master that nobody waits for {@code f}'s answer any more: a message still waiting for
     * its turn is then not applied (docs/protocol.md, "Overload").
     */
    private static void withdraw(CompletableFuture<Reply> f) {
        if (f != null) {
            f.cancel(false);
        }
    }

    /**
     * Answers a request the master did not answer in time with 503 and {@code Retry-After}, the
     * peer's cue to send again (left to the container, the request would end in a 500).
     */
    private static void late(AsyncContext async, AtomicBoolean answered) {
        if (answered.compareAndSet(false, true)) {
            PeerWork.sendAgainLater(async);
        }
    }

    /**
     * Writes {@code reply} to the request of {@code async}, unless it was answered (a timeout's 503),
     * and completes it once the body has left: the write holds no thread while the peer does not read.
     */
    private void answer(AsyncContext async, AtomicBoolean answered, Reply reply, boolean close) {
        if (!answered.compareAndSet(false, true)) {
            return; // too late: the peer has its 503 and sends again
        }
        try {
            HttpServletResponse resp = (HttpServletResponse) async.getResponse();
            if (close) {
                resp.setHeader("Connection", "close");
            }
            head(resp, gate, reply);
            AsyncAnswer.write(async, reply.body());
        } catch (IOException | IllegalStateException ex) {
            AsyncBody.complete(async);   // the caller went away
        }
    }

    /** A body that did not come within {@link #BODY_MILLIS}: 408, and the connection closed. */
    private static void timedOut(AsyncContext async) {
        try {
            HttpServletResponse resp = (HttpServletResponse) async.getResponse();
            resp.setHeader("Connection", "close");
            resp.setStatus(408);
        } catch (IllegalStateException ex) {
            // already answered
        } finally {
            AsyncBody.complete(async);
        }
    }

    /** Jetty's threads are released at once: the master is asked from the peers' own threads. */
    @Override
    public void destroy() {
        work.close();
    }

    /**
     * Goes asynchronous for one more request of {@code caller} in {@code limit}, counted out again
     * however the request ends (answered, timed out, the caller gone); null, and 429 answered, if
     * the caller has its limit open already. {@code timedOut} hears the request's timeout first.
     */
    private static AsyncContext counted(HttpServletRequest req, HttpServletResponse resp, InFlight limit, String caller,
                                        long timeout, java.util.function.Consumer<AsyncContext> timedOut) {
        if (!limit.enter(caller)) {
            tooMany(resp);
            return null;
        }
        AsyncContext async;
        try {
            async = req.startAsync();
        } catch (IllegalStateException ex) {
            limit.leave(caller);
            throw ex;
        }
        async.setTimeout(timeout);
        AtomicBoolean left = new AtomicBoolean();
        async.addListener(new AsyncListener() {
            @Override
            public void onComplete(AsyncEvent event) {
                if (left.compareAndSet(false, true)) {
                    limit.leave(caller);
                }
            }

            @Override
            public void onTimeout(AsyncEvent event) {
                timedOut.accept(event.getAsyncContext());
            }

            @Override
            public void onError(AsyncEvent event) {
            }

            @Override
            public void onStartAsync(AsyncEvent event) {
            }
        });
        return async;
    }

    /**
     * The longest a post may take, in all: its body's arrival (past it: 408) and the master's answer
     * after it (past it: 503, sent again by the peer).
     */
    static final long BODY_MILLIS = 10_000;
    /** How much longer than its own wait a poll may take before it is answered 503. */
    static final long POLL_GRACE_MILLIS = 10_000;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        long after = number(req.getParameter("after"));
        long wait = Math.min(number(req.getParameter("wait")), Paths.MAX_WAIT_MILLIS);
        AtomicBoolean answered = new AtomicBoolean();
        AsyncContext async = counted(req, resp, polls, String.valueOf(req.getHeader("Authorization")), wait + pollGraceMillis,
                a -> late(a, answered));
        if (async == null) {
            return;
        }
        long incarnation = number(req.getParameter("incarnation"));
        String authorization = req.getHeader("Authorization");
        String remote = req.getRemoteAddr() + ":" + req.getRemotePort();
        work.run(async, () -> {
            if (answered.get()) {
                return;   // its time passed while it waited for a peers' thread: answered 503 already
            }
            endpoint.poll(authorization, after, wait, incarnation, remote).whenCompleteAsync(
                    (reply, failure) -> answer(async, answered, failure == null ? reply : new Reply(503, new byte[0]), false), work.executor());
        });
    }

    /** 429, at once and empty: the caller has {@link #PER_TOKEN} requests of this kind open already. */
    private static void tooMany(HttpServletResponse resp) {
        resp.setStatus(429);
        resp.setHeader("Retry-After", "1");
    }

    /** Writes {@code r} whole, blocking: for answers given on the request's own thread, before it goes asynchronous. */
    private static void write(HttpServletResponse resp, HaGate gate, Reply r) throws IOException {
        head(resp, gate, r);
        if (r.body().length > 0) {
            resp.getOutputStream().write(r.body());
        }
    }

    /** The status and headers of {@code r}. */
    private static void head(HttpServletResponse resp, HaGate gate, Reply r) {
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
