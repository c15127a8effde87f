package granary.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed requests, each answered with its problem JSON (status, type, and words that say what
 * is wrong and where), and none of them changing anything.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MalformedRequestsTest {

    /** One bad request and what must come back. */
    record Bad(String name, String method, String path, String contentType, String body, int status, String type, String says) {
        @Override
        public String toString() {
            return name;
        }
    }

    static final String JSON = "application/json";
    static final String UNIT = "{\"name\": \"u\", \"slot\": {\"cpu\": 100, \"mem\": 1024}, \"desired\": 1}";
    static final String GROUP = "{\"GroupId\": 1, \"MaxQuota\": 10, \"MinQuota\": 2}";

    static Stream<Bad> requests() {
        return Stream.of(
                // ---- POST /jobs ----
                new Bad("empty job body", "POST", "/jobs", JSON, "", 400, "invalid-request", "request body"),
                new Bad("truncated job", "POST", "/jobs", JSON, "{\"id\": \"a\"", 400, "invalid-request", "request body"),
                new Bad("empty job array", "POST", "/jobs", JSON, "[]", 400, "invalid-request", "no job"),
                new Bad("job is a number", "POST", "/jobs", JSON, "42", 400, "invalid-request", "$"),
                new Bad("job is null", "POST", "/jobs", JSON, "null", 400, "invalid-request", "$"),
                new Bad("job without units", "POST", "/jobs", JSON, "{\"id\": \"a\"}", 400, "invalid-request", "units"),
                new Bad("job with an unknown field", "POST", "/jobs", JSON, "{\"id\": \"a\", \"units\": [" + UNIT + "], \"colour\": \"red\"}",
                        400, "invalid-request", "colour"),
                new Bad("units not an array", "POST", "/jobs", JSON, "{\"id\": \"a\", \"units\": {}}", 400, "invalid-request", "units"),
                new Bad("negative cpu", "POST", "/jobs", JSON, "{\"id\": \"a\", \"units\": [" + UNIT.replace("100", "-100") + "]}",
                        400, "invalid-request", "cpu"),
                new Bad("negative desire", "POST", "/jobs", JSON, "{\"id\": \"a\", \"units\": [" + UNIT.replace("\"desired\": 1", "\"desired\": -1") + "]}",
                        400, "invalid-request", "desired"),
                new Bad("desire as a word", "POST", "/jobs", JSON, "{\"id\": \"a\", \"units\": [" + UNIT.replace("\"desired\": 1", "\"desired\": \"ten\"") + "]}",
                        400, "invalid-request", "desired"),
                new Bad("empty job id", "POST", "/jobs", JSON, "{\"id\": \"\", \"units\": [" + UNIT + "]}", 400, "invalid-request", "id"),
                new Bad("same job twice", "POST", "/jobs", JSON, "[{\"id\": \"d\", \"units\": [" + UNIT + "]}, {\"id\": \"d\", \"units\": [" + UNIT + "]}]",
                        400, "", "d"),
                new Bad("same unit twice", "POST", "/jobs", JSON, "{\"id\": \"a\", \"units\": [" + UNIT + ", " + UNIT + "]}", 400, "", "u"),
                new Bad("slot larger than any node", "POST", "/jobs", JSON, "{\"id\": \"a\", \"units\": [" + UNIT.replace("100", "100000") + "]}",
                        400, "", "a"),
                new Bad("trailing data", "POST", "/jobs", JSON, "{\"id\": \"a\", \"units\": [" + UNIT + "]} x", 400, "invalid-request", "request body"),
                new Bad("a comment", "POST", "/jobs", JSON, "// mine\n{\"id\": \"a\", \"units\": [" + UNIT + "]}", 400, "invalid-request", "request body"),
                new Bad("bad locality level", "POST", "/jobs", JSON, "{\"id\": \"a\", \"units\": [{\"name\": \"u\", \"slot\": {\"cpu\": 100, \"mem\": 1024}, \"desired\": 1,"
                        + " \"locality\": [{\"level\": \"PLANET\", \"count\": 1}]}]}", 400, "invalid-request", "PLANET"),
                new Bad("text/plain job", "POST", "/jobs", "text/plain", "{\"id\": \"a\", \"units\": [" + UNIT + "]}", 415, "unsupported-media-type", "text/plain"),
                new Bad("job without a content type", "POST", "/jobs", null, "{\"id\": \"a\", \"units\": [" + UNIT + "]}", 415, "unsupported-media-type", "none"),
                new Bad("form-encoded job", "POST", "/jobs", "application/x-www-form-urlencoded", "id=a", 415, "unsupported-media-type", "form"),
                new Bad("a body over 1 MiB", "POST", "/jobs", JSON, "[" + "1,".repeat(600_000) + "1]", 413, "payload-too-large", "1048576"),
                // ---- PUT /jobs/{id}/queue ----
                new Bad("move without a queue", "PUT", "/jobs/wc/queue", JSON, "{}", 400, "invalid-request", "queue"),
                new Bad("queue as a number", "PUT", "/jobs/wc/queue", JSON, "{\"queue\": 5}", 400, "invalid-request", "a number"),
                new Bad("move with an unknown field", "PUT", "/jobs/wc/queue", JSON, "{\"queue\": \"root.a\", \"now\": true}", 400, "invalid-request", "now"),
                new Bad("move body an array", "PUT", "/jobs/wc/queue", JSON, "[]", 400, "invalid-request", "an array"),
                new Bad("move an unknown job", "PUT", "/jobs/ghost/queue", JSON, "{\"queue\": \"root.a\"}", 404, "not-found", "ghost"),
                // ---- PUT /policies/{name}/active ----
                new Bad("active as a word", "PUT", "/policies/fifo/active", JSON, "{\"active\": \"yes\"}", 400, "invalid-request", "active"),
                new Bad("active missing", "PUT", "/policies/fifo/active", JSON, "{}", 400, "invalid-request", "active"),
                new Bad("active with an unknown field", "PUT", "/policies/fifo/active", JSON, "{\"active\": true, \"now\": 1}", 400, "invalid-request", "now"),
                new Bad("active a bare boolean", "PUT", "/policies/fifo/active", JSON, "true", 400, "invalid-request", "object"),
                // ---- PUT /quota ----
                new Bad("truncated table", "PUT", "/quota", JSON, "{", 400, "invalid-request", "request body"),
                new Bad("min above max", "PUT", "/quota", JSON, "{\"default\": {\"g0\": {\"GroupId\": 1, \"MaxQuota\": 5, \"MinQuota\": 8}}}",
                        400, "invalid-request", "g0"),
                new Bad("group id a word", "PUT", "/quota", JSON, "{\"default\": {\"g0\": " + GROUP.replace("1,", "\"one\",") + "}}", 400, "invalid-request", "GroupId"),
                new Bad("unknown group field", "PUT", "/quota", JSON, "{\"default\": {\"g0\": " + GROUP.replace("}", ", \"Extra\": 1}") + "}}",
                        400, "invalid-request", "Extra"),
                new Bad("a slice that is no hours", "PUT", "/quota", JSON, "{\"25-3\": {\"g0\": " + GROUP + "}}", 400, "invalid-request", "25-3"),
                new Bad("worker spans garbage", "PUT", "/quota?workerSpans=lots", JSON, "{\"default\": {\"g0\": " + GROUP + "}}",
                        400, "invalid-parameter", "workerSpans"),
                new Bad("dry run not a boolean", "PUT", "/quota?dryRun=maybe", JSON, "{\"default\": {\"g0\": " + GROUP + "}}",
                        400, "invalid-parameter", "dryRun"),
                // ---- PUT /queues ----
                new Bad("capacity a word", "PUT", "/queues", JSON, "{\"queues\": {\"a\": {\"capacity\": \"abc\"}}}", 400, "invalid-request", "capacity"),
                new Bad("queues a number", "PUT", "/queues", JSON, "{\"queues\": 5}", 400, "invalid-request", "queues"),
                new Bad("unknown tree field", "PUT", "/queues", JSON, "{\"queues\": {}, \"colour\": 1}", 400, "invalid-request", "colour"),
                // ---- one strict JSON path: the files' reader, our words, escaped and cut echoes ----
                new Bad("a key given twice (move)", "PUT", "/jobs/wc/queue", JSON, "{\"queue\": \"root.a\", \"queue\": \"root.b\"}",
                        400, "invalid-request", "key 'queue' is given twice"),
                new Bad("a key given twice (active)", "PUT", "/policies/fifo/active", JSON, "{\"active\": true, \"active\": false}",
                        400, "invalid-request", "is given twice"),
                new Bad("single quotes", "PUT", "/jobs/wc/queue", JSON, "{'queue': 'root.a'}", 400, "invalid-request", "not valid JSON"),
                new Bad("a bidi override in a key", "PUT", "/jobs/wc/queue", JSON, "{\"q\u202Eeueu\": 1}", 400, "invalid-request",
                        "\\u202E"),
                new Bad("a 10,000-character key", "PUT", "/jobs/wc/queue", JSON, "{\"" + "k".repeat(10_000) + "\": 1}", 400,
                        "invalid-request", "(10000 chars)"),
                new Bad("a 70,000-character key", "PUT", "/jobs/wc/queue", JSON, "{\"" + "k".repeat(70_000) + "\": 1}", 400,
                        "invalid-request", "longer than the limit of 65536 characters"),
                new Bad("capacity resources not numbers", "PUT", "/queues", JSON, "{\"queues\": {\"a\": {\"capacity\": \"cpu=abc\"}}}",
                        400, "invalid-request", "amount of 'cpu' is not an integer"),
                // ---- paths and methods ----
                new Bad("POST on a GET route", "POST", "/status", JSON, "{}", 405, "method-not-allowed", "GET"),
                new Bad("no such path", "GET", "/jobz", null, null, 404, "not-found", "/api/v1/jobz"),
                new Bad("a method the path does not take", "PATCH", "/jobs", JSON, "{}", 405, "method-not-allowed", "GET, POST"),
                new Bad("a page size too large", "GET", "/jobs?limit=5000", null, null, 400, "invalid-parameter", "limit"),
                new Bad("an offset that is not a number", "GET", "/jobs?offset=x", null, null, 400, "invalid-parameter", "offset"));
    }

    @TempDir
    Path dir;
    ApiHarness h;

    @BeforeAll
    void start() throws Exception {
        h = new ApiHarness(null, 1024);
        assertEquals(201, h.send("POST", "/jobs", h.operator, RestApiTest.WC).status());
    }

    @AfterAll
    void stop() throws Exception {
        h.close();
    }

    @Test
    void thereAreAtLeastThirty() {
        assertTrue(requests().count() >= 30);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("requests")
    void isRefusedWithAProblemAndChangesNothing(Bad bad) throws Exception {
        String before = state();
        ApiHarness.Reply r = h.call(bad.method(), bad.path(), h.admin, bad.contentType(), bad.body());
        assertEquals(bad.status(), r.status(), bad.name() + ": " + r);
        assertTrue(r.header("Content-Type").startsWith("application/problem+json"), r.header("Content-Type"));
        JsonObject p = r.object();
        assertEquals(bad.status(), p.get("status").getAsInt());
        if (!bad.type().isEmpty()) {
            assertEquals("/api/v1/problems/" + bad.type(), p.get("type").getAsString(), r.toString());
        }
        assertFalse(p.get("title").getAsString().isBlank());
        assertTrue(r.body().contains(bad.says()), bad.name() + ": the problem should say '" + bad.says() + "': " + r.body());
        for (String leak : List.of("Strictness", "LENIENT", "github.com", "Exception", "java.", "\u202E")) {
            assertFalse(r.body().contains(leak), bad.name() + ": no library advice, class name or raw control: " + leak);
        }
        assertTrue(r.body().length() < 8_000, bad.name() + ": echoes are cut: " + r.body().length() + " chars");
        assertEquals(Api.BASE + bad.path().replaceAll("\\?.*", ""), p.get("instance").getAsString());
        if (bad.status() == 400 && bad.type().equals("invalid-request")) {
            assertFalse(p.getAsJsonArray("errors").isEmpty(), "every problem listed: " + r.body());
        }
        assertEquals(before, state(), bad.name() + " changed the state");
    }

    /**
     * API calls are bounded per identity ({@value CallLimits#PER_IDENTITY}), per client address
     * ({@value CallLimits#PER_ADDRESS}) and for all operators together ({@value CallLimits#ALL});
     * past a limit the answer is 429 at once (with Retry-After) naming it, and callers under their
     * limits are served (docs/security.md, "Limits"). Slow bodies of accepted calls hold no thread
     * and are cut at {@link ApiServlet#BODY_MILLIS} with 408.
     */
    @Test
    void slowCallsAreRefusedPastEachShareAndOthersAreServed() throws Exception {
        List<java.net.Socket> slow = new java.util.ArrayList<>();
        try {
            // one identity from 127.0.0.2: its 16 are taken, the 17th refused
            for (int i = 0; i < CallLimits.PER_IDENTITY; i++) {
                slow.add(slowPost("127.0.0.2", h.operator));
            }
            awaitOpen("operator/otto", "127.0.0.2", CallLimits.PER_IDENTITY, CallLimits.PER_IDENTITY);
            Seen identity = await429(() -> Seen.of(h.call("POST", "/jobs", h.operator, JSON, "{}")));
            assertEquals("1", identity.retryAfter());
            assertTrue(identity.body().contains("operator/otto has " + CallLimits.PER_IDENTITY + " calls open"), identity.body());
            assertEquals(200, h.get("/jobs", h.reader).status(), "another identity is served");

            // one address, other identities: 32 calls from 127.0.0.2 in all
            String other = h.tokens.issue("operator/olga");
            for (int i = 0; i < CallLimits.PER_ADDRESS - CallLimits.PER_IDENTITY; i++) {
                slow.add(slowPost("127.0.0.2", other));
            }
            awaitOpen("operator/olga", "127.0.0.2", CallLimits.PER_ADDRESS - CallLimits.PER_IDENTITY, CallLimits.PER_ADDRESS);
            String third = h.tokens.issue("operator/oona");
            Seen address = await429(() -> quickPost("127.0.0.2", third));
            assertTrue(address.body().contains("address 127.0.0.2 has " + CallLimits.PER_ADDRESS + " calls open"), address.body());
            assertEquals(200, h.get("/jobs", third).status(), "the same identity from another address is served");

            // all operators: 64 calls from four addresses
            for (int i = 0; i < CallLimits.ALL - CallLimits.PER_ADDRESS; i++) {
                slow.add(slowPost("127.0.0." + (3 + i / CallLimits.PER_IDENTITY), h.tokens.issue("operator/o" + i / CallLimits.PER_IDENTITY)));
            }
            awaitOpen("operator/o1", "127.0.0.4", CallLimits.PER_IDENTITY, CallLimits.PER_IDENTITY);
            assertEquals(CallLimits.ALL, h.servlet.openCalls("", "")[2], "every slow call is taken in");
            Seen all = await429(() -> Seen.of(h.call("GET", "/jobs", h.admin, null, null)));
            assertTrue(all.body().contains("operators have " + CallLimits.ALL + " calls open"), all.body());
        } finally {
            for (java.net.Socket s : slow.subList(0, Math.min(slow.size(), 8))) {
                s.close();
            }
        }
        // the calls whose bodies never came are cut at the deadline: 408 problem JSON, and each share comes back
        Seen cut = Seen.of(slow.get(slow.size() - 1));
        assertTrue(cut.status() == 408 && cut.body().contains("did not arrive within"), cut.toString());
        for (java.net.Socket s : slow) {
            s.close();
        }
        long until = System.nanoTime() + 30_000_000_000L;
        int status;
        do {
            status = h.get("/jobs", h.operator).status();
            Thread.sleep(50);
        } while (status == 429 && System.nanoTime() < until);
        assertEquals(200, status, "the shares come back when the slow calls end");
    }

    /** A POST whose body never comes (1 byte of 1,000), from {@code address}, with {@code token}. */
    private java.net.Socket slowPost(String address, String token) throws java.io.IOException {
        java.net.Socket s = new java.net.Socket();
        s.bind(new java.net.InetSocketAddress(address, 0));
        s.connect(new java.net.InetSocketAddress("127.0.0.1", h.base.getPort()), 5_000);
        s.setSoTimeout(30_000);
        s.getOutputStream().write(("POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                + "Authorization: Bearer " + token + "\r\nContent-Length: 1000\r\n\r\n{").getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        return s;
    }

    /** An answer as the test saw it, from the harness's client or read off a raw socket. */
    private record Seen(int status, String body, String retryAfter) {
        static Seen of(ApiHarness.Reply r) {
            return new Seen(r.status(), r.body(), r.header("Retry-After"));
        }

        /** What the server answered on {@code s}, read until it closes the connection or goes quiet. */
        static Seen of(java.net.Socket s) throws java.io.IOException {
            StringBuilder b = new StringBuilder();
            try {
                java.io.InputStream in = s.getInputStream();
                byte[] buf = new byte[4096];
                for (int n; (n = in.read(buf)) > 0; ) {
                    b.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                    if (b.indexOf("\r\n\r\n") > 0 && b.toString().endsWith("}")) {
                        break;
                    }
                }
            } catch (java.net.SocketTimeoutException quiet) {
                // what came is all there is
            }
            String text = b.toString();
            int status = text.startsWith("HTTP/1.1 ") ? Integer.parseInt(text.substring(9, 12)) : -1;
            java.util.regex.Matcher retry = java.util.regex.Pattern.compile("(?i)Retry-After: (\\S+)").matcher(text);
            return new Seen(status, text, retry.find() ? retry.group(1) : null);
        }
    }

    /** A POST of a whole (invalid) job from {@code address}, with {@code token}: its answer (400 if taken). */
    private Seen quickPost(String address, String token) throws java.io.IOException {
        try (java.net.Socket s = new java.net.Socket()) {
            s.bind(new java.net.InetSocketAddress(address, 0));
            s.connect(new java.net.InetSocketAddress("127.0.0.1", h.base.getPort()), 5_000);
            s.setSoTimeout(10_000);
            s.getOutputStream().write(("POST /api/v1/jobs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    + "Authorization: Bearer " + token + "\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}")
                    .getBytes(StandardCharsets.US_ASCII));
            return Seen.of(s);
        }
    }

    /** Waits (at most 10 s) until the server holds {@code identity}'s and {@code address}'s slow calls. */
    private void awaitOpen(String identity, String address, int ofIdentity, int ofAddress) throws InterruptedException {
        long until = System.nanoTime() + 10_000_000_000L;
        int[] open = h.servlet.openCalls(identity, address);
        while ((open[0] < ofIdentity || open[1] < ofAddress) && System.nanoTime() < until) {
            Thread.sleep(20);
            open = h.servlet.openCalls(identity, address);
        }
        assertEquals(ofIdentity, open[0], identity + "'s slow calls taken in");
        assertEquals(ofAddress, open[1], address + "'s slow calls taken in");
    }

    /** Calls until the answer is 429 (the slow calls before it are still being taken in), for at most 10 s. */
    private static Seen await429(java.util.concurrent.Callable<Seen> call) throws Exception {
        Seen r = null;
        long until = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < until) {
            r = call.call();
            if (r.status() == 429) {
                return r;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no 429 within 10 s; last answer: " + r);
    }

    /** Jobs, their queues and grants, the quota table, the policies in effect. */
    private String state() throws Exception {
        return h.get("/jobs", h.reader).body() + h.get("/quota", h.reader).status() + h.get("/policies", h.reader).body()
                + h.get("/queues", h.reader).body();
    }

    static List<Bad> all() {
        return requests().toList();
    }
}
