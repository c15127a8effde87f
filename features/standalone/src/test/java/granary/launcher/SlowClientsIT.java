package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.Resources;
import granary.protocol.Register;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.link.SyncLink;
import granary.protocol.link.Tokens;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Slow clients cannot hold the master (docs/security.md, "Limits"), on the runnable jar's real
 * Jetty: posts without a valid token are refused from their headers, before a byte of their body
 * is read; posts with a valid token whose bodies come a byte at a time hold no thread while they
 * come and are answered 408 past the read deadline; meanwhile an agent registers and is answered.
 */
class SlowClientsIT {

    /** More than Jetty's 200 threads: under blocking reads these alone would hold every one. */
    private static final int SLOW = 250;

    @TempDir
    Path tmp;
    private final List<Socket> sockets = new ArrayList<>();

    @AfterEach
    void closeSockets() {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ex) {
                // closing
            }
        }
    }

    @Test
    void slowBodiesHoldNoThreadAndTokenlessOnesAreRefusedBeforeTheirBody() throws Exception {
        try (ListeningRuntime r = ListeningRuntime.start(tmp, "--demo=false", "--piped", "--listen=127.0.0.1:0",
                "--secret=" + tmp.resolve("granary.secret"))) {
            int port = r.awaitListening("http");
            Tokens tokens = Tokens.fromFile(tmp.resolve("granary.secret"));

            // valid tokens, bodies that never come: no thread held while they do not
            List<Socket> slowAuthenticated = new ArrayList<>();
            for (int i = 0; i < SLOW; i++) {
                String agentToken = tokens.issue(new Sender(Role.AGENT, "slow-" + i));
                slowAuthenticated.add(open(port, "POST", "/protocol/v1/messages", "Bearer " + agentToken, 1000, "{"));
            }
            // one token opening more than its share: refused at once past it (a peer has one post open)
            String greedy = tokens.issue(new Sender(Role.AGENT, "greedy"));
            List<Socket> greedyOnes = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                greedyOnes.add(open(port, "POST", "/protocol/v1/messages", "Bearer " + greedy, 1000, "{"));
            }
            // refused at once: a 429 is only ever given as the headers arrive, never after waiting for the
            // body (the four that are read end in 408 when the 10 s body limit passes, which is not counted);
            // a loaded machine may take seconds to say it (the suite failed once at 7 s), so each unanswered
            // one is asked again for up to 20 s
            int refusedAtOnce = 0;
            List<Socket> unanswered = new ArrayList<>(greedyOnes);
            List<String> answers = new ArrayList<>();
            long began = System.nanoTime();
            long until = began + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
            while (!unanswered.isEmpty() && refusedAtOnce < 6 && System.nanoTime() < until) {
                for (java.util.Iterator<Socket> it = unanswered.iterator(); it.hasNext(); ) {
                    String status = statusLine(it.next(), 250);
                    if (status.startsWith("HTTP/1.1 429")) {
                        refusedAtOnce++;
                    }
                    if (!status.startsWith("(no answer")) {
                        answers.add((System.nanoTime() - began) / 1_000_000 + " ms: '" + status + "'");
                        it.remove();
                    }
                }
            }
            assertEquals(6, refusedAtOnce, "ten slow posts of one token: four are read, the rest refused at once; answers: " + answers
                    + "; " + unanswered.size() + " unanswered after " + (System.nanoTime() - began) / 1_000_000 + " ms");
            // no token: refused at once, on the wire and on the API
            List<Socket> tokenless = new ArrayList<>();
            for (int i = 0; i < SLOW; i++) {
                tokenless.add(open(port, "POST", i % 2 == 0 ? "/protocol/v1/messages" : "/api/v1/jobs", null, 1000, "{"));
            }
            for (Socket s : tokenless) {
                String head = statusLine(s, 10_000);
                assertTrue(head.startsWith("HTTP/1.1 401"), "a tokenless post with its body still to come: " + head);
            }

            // operators holding every call the API takes at once (4 identities from 4 addresses, bodies that
            // never come) hold none of the threads peers need; one more operator call is refused at once
            List<Socket> operators = new ArrayList<>();
            for (int i = 0; i < 64; i++) {
                String admin = tokens.issue("admin/a" + i / 16);
                operators.add(openFrom("127.0.0." + (10 + i / 16), port, "PUT", "/api/v1/jobs/j1/queue",
                        "Bearer " + admin, 1000, "{"));
            }
            // one more operator (its body never comes either) is refused at once; until all 64 are taken in, the
            // server may take a latecomer in their place: it is held like them, and the next one is tried
            String operatorPast = "";
            for (int i = 0; i < 16 && !operatorPast.startsWith("HTTP/1.1 429"); i++) {
                Socket late = openFrom("127.0.0.20", port, "PUT", "/api/v1/jobs/j1/queue", "Bearer " + tokens.issue("admin/late" + i),
                        1000, "{");
                operatorPast = statusLine(late, 3_000);
                if (!operatorPast.startsWith("HTTP/1.1 429")) {
                    operators.add(late);
                } // a refusal waits up to 2 s for the body it drops
            }
            assertEquals("HTTP/1.1 429 Too Many Requests", operatorPast, "the operators' share is full");

            // meanwhile an agent registers and gets its answer
            try (SyncLink agent = new SyncLink(URI.create("http://127.0.0.1:" + port), new Sender(Role.AGENT, "n1"), 1,
                    tokens.issue(new Sender(Role.AGENT, "n1")), SyncLink.Options.defaults())) {
                assertFalse(agent.send(new Register("n1", "r1", Map.of(), Resources.of(400, 1024), "http://127.0.0.1:9/n1"))
                        .isRefusal(), "the registration of n1 while " + SLOW + " bodies trickle");
            }

            // the wire's own refusals are problem JSON; a wrong method is 405 naming the right one
            String wrongMethod = rawExchange(port, "GET /protocol/v1/messages HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertTrue(wrongMethod.startsWith("HTTP/1.1 405") && wrongMethod.contains("Allow: POST")
                    && wrongMethod.contains("application/problem+json") && wrongMethod.contains("takes POST"), wrongMethod);
            String wrongPath = rawExchange(port, "GET /protocol/v1/nothing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            assertTrue(wrongPath.startsWith("HTTP/1.1 404") && wrongPath.contains("application/problem+json")
                    && !wrongPath.contains("<html"), wrongPath);

            // what Jetty answers before any servlet is problem JSON too, never its HTML page
            String longUri = "GET /api/v1/" + "a".repeat(70_000) + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
            String bigHeader = "GET /api/v1/jobs HTTP/1.1\r\nHost: x\r\nX-Big: " + "b".repeat(70_000) + "\r\nConnection: close\r\n\r\n";
            Map<String, String> beforeAnyServlet = new java.util.LinkedHashMap<>();
            beforeAnyServlet.put("HTTP/1.1 400", "NOT A REQUEST LINE\r\n\r\n");
            beforeAnyServlet.put("HTTP/1.1 400 ", "GET /api/v1/jobs HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n");
            beforeAnyServlet.put("HTTP/1.1 414", longUri);
            beforeAnyServlet.put("HTTP/1.1 431", bigHeader);
            beforeAnyServlet.put("HTTP/1.1 505", "GET /api/v1/jobs HTTP/9.9\r\nHost: x\r\nConnection: close\r\n\r\n");
            beforeAnyServlet.put("HTTP/1.1 400  ", "GET /api/v1/%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            for (Map.Entry<String, String> e : beforeAnyServlet.entrySet()) {
                String answer = rawExchange(port, e.getValue());
                String shown = answer.substring(0, Math.min(answer.length(), 600));
                assertTrue(answer.startsWith(e.getKey().trim()) && answer.contains("Content-Type: application/problem+json")
                        && answer.contains("\"status\":" + e.getKey().trim().substring(9)) && !answer.contains("<html")
                        && !answer.contains("org.eclipse") && !answer.contains("Exception") && !answer.contains("/badURI")
                        && !answer.contains("/badMessage") && !answer.contains("log says why"), shown);
                assertTrue(answer.length() < 2_000, "an error echoes at most a few hundred characters: " + shown);
            }

            // the slow bodies are cut at the read deadline
            for (Socket s : slowAuthenticated) {
                String head = statusLine(s, 30_000);
                assertTrue(head.startsWith("HTTP/1.1 408"), "a body that did not come within the deadline: " + head);
            }
            for (Socket s : operators) {
                // 408 at the deadline; or 429 for one the server refused when a latecomer took its place first
                String head = statusLine(s, 30_000);
                assertTrue(head.startsWith("HTTP/1.1 408") || head.startsWith("HTTP/1.1 429"), "an operator's slow call: " + head);
            }
            ChildProcess.Result done = r.finish();
            assertEquals(0, done.exit(), done::toString);
            assertFalse(done.err().contains("Exception"), "no stack trace for slow clients: " + done.err());
        }
    }

    /** Everything the server answers to {@code request} on a connection of its own (it closes it). */
    private String rawExchange(int port, String request) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    /** A connection that sent a request's headers and {@code firstBytes} of a body of {@code length}. */
    private Socket open(int port, String method, String path, String authorization, int length, String firstBytes) throws IOException {
        return openFrom("127.0.0.1", port, method, path, authorization, length, firstBytes);
    }

    /** The same from the loopback address {@code from} (any of 127/8). */
    private Socket openFrom(String from, int port, String method, String path, String authorization, int length, String firstBytes)
            throws IOException {
        Socket s = new Socket();
        sockets.add(s);
        s.bind(new java.net.InetSocketAddress(from, 0));
        s.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
        OutputStream out = s.getOutputStream();
        out.write((method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nContent-Type: application/json\r\n"
                + (authorization == null ? "" : "Authorization: " + authorization + "\r\n")
                + "Content-Length: " + length + "\r\n\r\n" + firstBytes).getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return s;
    }

    /** The first line the server answered on {@code s}, waited for up to {@code millis}; "" if the connection closed first. */
    private static String statusLine(Socket s, int millis) throws IOException {
        s.setSoTimeout(millis);
        InputStream in = s.getInputStream();
        StringBuilder b = new StringBuilder();
        try {
            for (int c; (c = in.read()) >= 0 && c != '\n'; ) {
                b.append((char) c);
            }
        } catch (SocketTimeoutException ex) {
            return "(no answer within " + millis + " ms)";
        }
        return b.toString().trim();
    }
}
