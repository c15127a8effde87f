package granary.http;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import granary.api.model.Problem;
import granary.master.LeaderLease;
import granary.master.http.AsyncBody;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Serves {@link Api}'s routes under {@code /api/v1/*}: authentication and roles, body limits and
 * media types, dispatch, answers as JSON and errors as problem JSON, the audit of every write, the
 * allocation stream and the OpenAPI description (docs/api.md).
 */
public final class ApiServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    /** The largest request body, as for the protocol. */
    public static final int MAX_BODY_BYTES = 1 << 20;

    private final transient Api api;
    private final transient ApiAuth auth;
    private final transient EventStream stream;
    private final transient String version;
    private final transient LeaderWrites writes;
    private final transient OneLineLog log = new OneLineLog(System.err, System::currentTimeMillis);
    /** Calls open at once, per identity, per address and in all (docs/security.md, "Limits"). */
    private final transient CallLimits limits = new CallLimits();
    /** Calls open now: of {@code identity}, from {@code address}, of all operators (for tests). */
    int[] openCalls(String identity, String address) {
        return limits.open(identity, address);
    }

    /** Streams each identity may have open at once; counted apart from calls (a stream holds no thread). */
    static final int STREAMS_PER_IDENTITY = 4;
    private final transient granary.protocol.link.InFlight streams = new granary.protocol.link.InFlight(STREAMS_PER_IDENTITY);

    /** A servlet of the only master: it always takes writes. */
    public ApiServlet(Api api, ApiAuth auth, EventStream stream, String version) {
        this(api, auth, stream, version, () -> LeaderLease.ALWAYS);
    }

    /**
     * @param lease the runtime's leadership (docs/ha.md, "The API of a standby"): writes are taken
     *              only while it is held; null from it: no master side runs, no write is taken
     */
    public ApiServlet(Api api, ApiAuth auth, EventStream stream, String version, Supplier<LeaderLease> lease) {
        this.api = api;
        this.auth = auth;
        this.stream = stream;
        this.version = version;
        this.writes = new LeaderWrites(lease);
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String path = req.getPathInfo() == null ? "/" : req.getPathInfo();
        String method = req.getMethod().toUpperCase(Locale.ROOT);
        String instance = instance(req);
        ApiAuth.Caller caller = null;
        boolean counted = false;
        try {
            caller = auth.caller(req.getHeader("Authorization"));
            if (path.equals("/stream") && method.equals("GET")) {
                ApiAuth.require(caller, ApiRole.READER, "GET " + instance);
                if (!streams.enter(caller.identity())) {
                    throw CallLimits.tooMany(caller.identity() + " has " + STREAMS_PER_IDENTITY
                            + " streams open, the most one identity may");
                }
                try {
                    stream(req, resp);
                } finally {
                    streams.leave(caller.identity());
                }
                return;
            }
            if (path.equals("/openapi.json") && method.equals("GET")) {
                send(resp, Answer.ok(OpenApi.describe(api.routes(), version)));
                return;
            }
            ApiException tooMany = limits.enter(caller.identity(), req.getRemoteAddr());
            if (tooMany != null) {
                throw tooMany;
            }
            counted = true;
            Matched m = match(method, path);
            ApiAuth.require(caller, m.route.role(), method + " " + instance);
            if (isWrite(req)) {
                // only the leader holding its lease takes a write; checked before anything is read or changed
                writes.before(req.getRequestURI() + (req.getQueryString() == null ? "" : "?" + req.getQueryString()));
            }
            if (m.route.body() == null) {
                respond(req, resp, caller, m, new byte[0]);
            } else {
                readThenRespond(req, resp, caller, m);
                counted = false; // counted out when its body has come and it is answered
            }
        } catch (ApiException e) {
            finish(req, resp, caller, null, e);
        } finally {
            if (counted) {
                limits.leave(caller.identity(), req.getRemoteAddr());
            }
        }
    }

    /**
     * Reads the call's body as it comes, holding no thread while it does not (docs/security.md,
     * "Limits"), for at most {@link #BODY_MILLIS} in all; then answers it on the thread that read
     * its end. Refused before a byte is read: not JSON (415), declared larger than the limit (413).
     */
    private void readThenRespond(HttpServletRequest req, HttpServletResponse resp, ApiAuth.Caller caller, Matched m)
            throws IOException {
        bodyHeaders(req);
        AsyncContext async = req.startAsync();
        async.setTimeout(BODY_MILLIS);
        AsyncBody.read(async, MAX_BODY_BYTES, (body, end) -> {
            try {
                switch (end) {
                    case WHOLE -> respond(req, resp, caller, m, body);
                    case TOO_LARGE -> abandon(req, resp, caller, tooLarge(-1)); // the rest is not read
                    case TIMED_OUT -> abandon(req, resp, caller, new ApiException(408, "timeout", "The body came too slowly",
                            "the request's body did not arrive within " + BODY_MILLIS / 1000 + " s", List.of()));
                    case FAILED -> log.log(req.getMethod() + " " + instance(req) + " from " + req.getRemoteAddr()
                            + ": the client went away");
                }
            } catch (IllegalStateException gone) {
                // the container ended the request already
            } finally {
                limits.leave(caller.identity(), req.getRemoteAddr());
                AsyncBody.complete(async);
            }
        });
    }

    /** The resource a request names, as problems and the audit say it. */
    private static String instance(HttpServletRequest req) {
        return Api.BASE + (req.getPathInfo() == null ? "/" : req.getPathInfo());
    }

    /** Whether a request may change something (audited, and taken only by the leader). */
    private static boolean isWrite(HttpServletRequest req) {
        String method = req.getMethod().toUpperCase(Locale.ROOT);
        return !method.equals("GET") && !method.equals("HEAD");
    }

    /** The longest an accepted call's body may take to arrive, in all. */
    static final long BODY_MILLIS = 10_000;

    /** Runs the call's handler on its body and answers. */
    private void respond(HttpServletRequest req, HttpServletResponse resp, ApiAuth.Caller caller, Matched m, byte[] body) {
        try {
            Call call = new Call(caller.identity(), caller.role(), m.params, query(req), headers(req), body);
            Answer answer = m.route.handler().handle(call);
            if (isWrite(req)) {
                writes.after(); // a lease lost while the write was applied: not acknowledged
            }
            finish(req, resp, caller, answer, null);
        } catch (ApiException e) {
            finish(req, resp, caller, null, e);
        } catch (Exception e) {
            // no class name or trace to the client; one line to the log
            long ref = System.nanoTime() & 0xffffffL;
            log.log(req.getMethod() + " " + instance(req) + " from " + req.getRemoteAddr() + ": failed (reference " + ref
                    + "): " + e);
            finish(req, resp, caller, null, new ApiException(500, "internal", "The API failed",
                    "the master could not answer this request; its log says why under reference " + ref, List.of()));
        }
    }

    /** Records a write's outcome in the audit log (reads are not audited). */
    private void audit(HttpServletRequest req, ApiAuth.Caller caller, Answer answer, ApiException refusal) {
        if (isWrite(req)) {
            api.audit().record(caller == null ? AuditLog.UNAUTHENTICATED : caller.identity(), req.getRemoteAddr(),
                    req.getMethod().toUpperCase(Locale.ROOT), instance(req), req.getQueryString(),
                    refusal == null ? answer.status() : refusal.status(),
                    refusal == null ? summary(answer.body()) : refusal.detail());
        }
    }

    /** Answers a call whose body is not read to its end (too large, too slow), and closes its connection. */
    private void abandon(HttpServletRequest req, HttpServletResponse resp, ApiAuth.Caller caller, ApiException refusal) {
        audit(req, caller, null, refusal);
        resp.setHeader("Connection", "close");
        try {
            problem(resp, refusal, instance(req));
        } catch (IOException gone) {
            log.log(req.getMethod() + " " + instance(req) + " from " + req.getRemoteAddr()
                    + ": the answer was not delivered (" + gone.getMessage() + ")");
        }
    }

    /** Audits a write (before the answer leaves: a client that reads the audit after its answer finds it), then answers. */
    private void finish(HttpServletRequest req, HttpServletResponse resp, ApiAuth.Caller caller, Answer answer,
                        ApiException refusal) {
        String instance = instance(req);
        audit(req, caller, answer, refusal);
        try {
            answer(req, resp, refusal, answer, instance);
        } catch (IOException gone) {
            log.log(req.getMethod() + " " + instance + " from " + req.getRemoteAddr() + ": the answer was not delivered ("
                    + gone.getMessage() + ")");
        }
    }

    private void answer(HttpServletRequest req, HttpServletResponse resp, ApiException refusal, Answer answer, String instance)
            throws IOException {
        if (refusal != null && !drained(req)) {
            // The rest of its body is read and dropped as it comes, holding no thread, for at most
            // DISCARD_MILLIS; then the answer (a refused caller must not hold a thread while it sends
            // slowly, and an answer written over unread bytes is lost to the connection's reset).
            ApiException r = refusal;
            discardThen(req, resp, () -> problem(resp, r, instance));
        } else if (refusal != null) {
            problem(resp, refusal, instance);
        } else {
            send(resp, answer);
        }
    }

    /** A route and the values of its named segments. */
    private record Matched(Route route, Map<String, String> params) {
    }

    private Matched match(String method, String path) {
        List<String> segs = Arrays.stream(path.substring(1).split("/", -1)).toList();
        Set<String> allowed = new LinkedHashSet<>();
        for (Route r : api.routes()) {
            Map<String, String> params = bind(r.segments(), segs);
            if (params != null) {
                if (r.method().equals(method)) {
                    return new Matched(r, params);
                }
                allowed.add(r.method());
            }
        }
        if (allowed.isEmpty()) {
            throw ApiException.notFound("path " + path, "no resource at " + Api.BASE + path + " (GET " + Api.BASE
                    + "/openapi.json lists them)");
        }
        throw new ApiException(405, "method-not-allowed", "The resource does not take this method",
                method + " is not allowed on " + Api.BASE + path + "; allowed: " + String.join(", ", allowed), List.of());
    }

    private static Map<String, String> bind(List<String> template, List<String> segs) {
        if (template.size() != segs.size()) {
            return null;
        }
        Map<String, String> params = new HashMap<>();
        for (int i = 0; i < template.size(); i++) {
            String t = template.get(i);
            String s = segs.get(i);
            if (t.startsWith("{")) {
                if (s.isEmpty()) {
                    return null;
                }
                params.put(t.substring(1, t.length() - 1), URLDecoder.decode(s, StandardCharsets.UTF_8));
            } else if (!t.equals(s)) {
                return null;
            }
        }
        return params;
    }

    /** A body's headers, checked before a byte of it is read: JSON (415), not declared larger than the limit (413). */
    private static void bodyHeaders(HttpServletRequest req) {
        String type = req.getContentType();
        String media = type == null ? "" : type.split(";")[0].trim().toLowerCase(Locale.ROOT);
        if (!media.equals("application/json") && !media.endsWith("+json")) {
            throw new ApiException(415, "unsupported-media-type", "The body must be JSON",
                    "Content-Type must be application/json, got " + (type == null ? "none" : "'" + type + "'"), List.of());
        }
        long declared = req.getContentLengthLong();
        if (declared > MAX_BODY_BYTES) {
            throw tooLarge(declared);
        }
    }

    /** The longest a refused request's unread body is waited for before its answer (and the connection closed). */
    static final long DISCARD_MILLIS = 2_000;

    /** An answer written once. */
    @FunctionalInterface
    private interface Answering {
        void write() throws IOException;
    }

    /** Drops the rest of a refused request's body as it comes (no thread waits), then answers; past the deadline, answers and closes. */
    private static void discardThen(HttpServletRequest req, HttpServletResponse resp, Answering answer) throws IOException {
        AsyncContext async = req.startAsync();
        async.setTimeout(DISCARD_MILLIS);
        AsyncBody.discard(async, MAX_BODY_BYTES, (none, end) -> {
            try {
                if (end != AsyncBody.End.WHOLE) {
                    resp.setHeader("Connection", "close"); // the rest of the body is not read
                }
                if (end != AsyncBody.End.FAILED) {
                    answer.write();
                }
            } catch (IOException | IllegalStateException ex) {
                // the caller went away
            } finally {
                AsyncBody.complete(async);
            }
        });
    }

    /**
     * Reads what has already arrived of a refused request's body, never waiting for more; true if
     * the body was read to its end.
     */
    private static boolean drained(HttpServletRequest req) {
        try {
            jakarta.servlet.ServletInputStream in = req.getInputStream();
            long left = req.getContentLengthLong() < 0 ? MAX_BODY_BYTES + 1L : req.getContentLengthLong();
            byte[] sink = new byte[8192];
            while (left > 0) {
                int ready = in.available();
                if (ready <= 0) {
                    return in.isFinished();
                }
                int n = in.read(sink, 0, (int) Math.min(sink.length, Math.min(left, ready)));
                if (n < 0) {
                    return true;
                }
                left -= n;
            }
            return true;
        } catch (IOException | IllegalStateException e) {
            return false; // read already, or the client went away
        }
    }

    private static ApiException tooLarge(long declared) {
        return new ApiException(413, "payload-too-large", "The body is too large",
                "a request body holds at most " + MAX_BODY_BYTES + " bytes" + (declared > 0 ? ", got " + declared : ""),
                List.of(new Problem("request body", "$", "larger than " + MAX_BODY_BYTES + " bytes", (long) MAX_BODY_BYTES,
                        declared > 0 ? declared : null)));
    }

    private static Map<String, String> query(HttpServletRequest req) {
        Map<String, String> q = new LinkedHashMap<>();
        req.getParameterMap().forEach((k, v) -> q.put(k, v.length == 0 ? "" : v[0]));
        return q;
    }

    private static Map<String, String> headers(HttpServletRequest req) {
        Map<String, String> h = new HashMap<>();
        for (String n : Collections.list(req.getHeaderNames())) {
            h.put(n.toLowerCase(Locale.ROOT), req.getHeader(n));
        }
        return h;
    }

    private static void send(HttpServletResponse resp, Answer a) throws IOException {
        resp.setStatus(a.status());
        a.headers().forEach(resp::setHeader);
        write(resp, a.body(), "application/json");
    }

    private static void problem(HttpServletResponse resp, ApiException e, String instance) throws IOException {
        if (resp.isCommitted()) {
            return;
        }
        resp.reset();
        resp.setStatus(e.status());
        e.headers().forEach(resp::setHeader);
        if (e.status() == 401) {
            resp.setHeader("WWW-Authenticate", "Bearer realm=\"granary\"");
        }
        if (e.status() == 405) {
            String detail = e.detail();
            resp.setHeader("Allow", detail.substring(detail.lastIndexOf(": ") + 2));
        }
        write(resp, Json.problem(e, instance), "application/problem+json");
    }

    private static void write(HttpServletResponse resp, JsonElement body, String type) throws IOException {
        byte[] bytes = Json.write(body).getBytes(StandardCharsets.UTF_8);
        resp.setContentType(type + ";charset=utf-8");
        resp.setContentLength(bytes.length);
        resp.getOutputStream().write(bytes);
    }

    /** The audit's one-line result of a write that succeeded. */
    private static String summary(JsonElement body) {
        if (body instanceof JsonObject o) {
            return o.entrySet().stream().filter(e -> e.getValue().isJsonPrimitive())
                    .map(e -> e.getKey() + "=" + e.getValue().getAsString()).collect(Collectors.joining(" "));
        }
        return "ok";
    }

    private void stream(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String types = req.getParameter("types");
        Set<String> wanted = types == null || types.isBlank() ? null
                : Arrays.stream(types.split(",")).map(String::trim).filter(s -> !s.isEmpty()).collect(Collectors.toSet());
        if (!stream.accepting()) {
            throw new ApiException(503, "busy", "Too many subscribers", "the stream serves " + stream.subscribers()
                    + " subscribers, its limit; try again later", List.of());
        }
        String last = req.getHeader("Last-Event-ID");
        if (last == null) {
            last = req.getParameter("lastEventId");
        }
        AsyncContext async = req.startAsync();
        async.setTimeout(0);
        resp.setStatus(200);
        resp.setContentType("text/event-stream;charset=utf-8");
        resp.setHeader("Cache-Control", "no-cache");
        resp.setHeader("X-Accel-Buffering", "no");
        resp.flushBuffer();
        boolean taken = stream.attach(new EventStream.Sink() {
            @Override
            public OutputStream out() throws IOException {
                return async.getResponse().getOutputStream();
            }

            @Override
            public void close() {
                try {
                    async.complete();
                } catch (IllegalStateException e) {
                    // completed already (the client went away)
                }
            }
        }, last, wanted);
        if (!taken) {
            // headers are out already: say it in the stream and end it
            async.getResponse().getOutputStream().write(("event: refused\ndata: {\"detail\":\"too many subscribers\"}\n\n")
                    .getBytes(StandardCharsets.UTF_8));
            async.complete();
        }
    }
}
