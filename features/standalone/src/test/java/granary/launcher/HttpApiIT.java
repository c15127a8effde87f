package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The HTTP API in the runnable jar on this run's framework (Felix or Equinox, Felix HTTP's Jetty on
 * a loopback port): tokens issued by {@code --issue-token}, reads and writes, problem JSON, the
 * audit file, the stream. The README's curl examples, as printed, run in ReadmeExamplesIT.
 */
class HttpApiIT {

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private String token(String identity) throws Exception {
        ChildProcess.Result r = ChildProcess.run(It.runnableJar(), tmp, "", "--issue-token=" + identity, "--create-secret",
                "--secret=" + tmp.resolve("granary.secret"));
        assertEquals(0, r.exit(), r::toString);
        return r.out().strip();
    }

    private HttpResponse<String> call(int port, String method, String path, String token, String body) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(20));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (body != null) {
            b.header("Content-Type", "application/json");
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void theRuntimeServesTheApiWithRolesProblemsAuditAndStream() throws Exception {
        String admin = token("admin/ada");
        String reader = token("reader/rita");
        String agent = token("agent/n1");
        try (ListeningRuntime r = ListeningRuntime.start(tmp, "--demo=false", "--piped", "--listen=127.0.0.1:0",
                "--secret=" + tmp.resolve("granary.secret"), "--config=granary.http:auditFile=api-audit.log")) {
            int port = r.awaitListening("http");
            HttpResponse<String> status = awaitApi(port, reader);
            assertTrue(status.body().contains("\"nodes\":0"), "no agents, no nodes: " + status.body());

            assertEquals(401, call(port, "GET", "/api/v1/status", null, null).statusCode());
            // the server's own error pages are problem JSON too (docs/security.md, "Errors and logs")
            HttpResponse<String> nothing = call(port, "GET", "/nothing/here", null, null);
            assertEquals(404, nothing.statusCode());
            assertTrue(nothing.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json")
                    && nothing.body().contains("nothing is served at") && nothing.body().contains("\"instance\":\"/nothing/here\"")
                    && !nothing.body().contains("<html"),
                    nothing.body());
            assertEquals(403, call(port, "GET", "/api/v1/status", agent, null).statusCode(), "a peer's token is no user's");
            HttpResponse<String> forbidden = call(port, "POST", "/api/v1/jobs", reader, "{}");
            assertEquals(403, forbidden.statusCode());
            assertTrue(forbidden.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"));

            String job = Files.readString(It.target().getParent().resolve("examples/wordcount.json"));
            HttpResponse<String> refused = call(port, "POST", "/api/v1/jobs", admin, job);
            assertEquals(400, refused.statusCode(), "a slot larger than every node (there is none): " + refused.body());
            assertTrue(refused.body().contains("\"field\":\"units[0].slot\""), refused.body());
            assertEquals(404, call(port, "GET", "/api/v1/jobs/wordcount-1", reader, null).statusCode(), "nothing was submitted");

            HttpResponse<String> bad = call(port, "PUT", "/api/v1/quota", admin, "{\"default\": {\"g\": {\"GroupId\": 1, \"MaxQuota\": 1, \"MinQuota\": 2}}}");
            assertEquals(400, bad.statusCode(), bad.body());
            assertTrue(bad.body().contains("\"type\":\"/api/v1/problems/invalid-request\""), bad.body());

            HttpResponse<String> policies = call(port, "GET", "/api/v1/policies", reader, null);
            assertTrue(policies.body().contains("\"name\":\"quota\""), "every packed policy is listed: " + policies.body());
            HttpResponse<String> agents = call(port, "GET", "/api/v1/agents", reader, null);
            assertEquals(200, agents.statusCode(), "the master's peers, through its MasterMonitor: " + agents.body());
            assertTrue(agents.body().contains("\"total\":0"), agents.body());
            HttpResponse<String> spec = call(port, "GET", "/api/v1/openapi.json", reader, null);
            assertTrue(spec.body().contains("\"operationId\":\"whyJob\""), spec.body());

            List<String> events = streamLines(port, reader, 3);
            assertTrue(events.get(0).startsWith("retry:") || events.stream().anyMatch(l -> l.equals("event: snapshot")), events.toString());
            assertTrue(events.stream().anyMatch(l -> l.equals("event: snapshot")), events.toString());

            assertEquals(404, call(port, "DELETE", "/api/v1/jobs/wordcount-1", admin, null).statusCode());
            List<String> audit = Files.readAllLines(tmp.resolve("api-audit.log"));
            assertEquals(4, audit.size(), "the forbidden POST, the refused job, the refused table, the cancel: " + audit);
            assertTrue(audit.get(1).contains("\"who\":\"admin/ada\"") && audit.get(1).contains("\"status\":400"), audit.get(1));
            assertTrue(audit.get(0).contains("\"who\":\"reader/rita\"") && audit.get(0).contains("\"status\":403"), audit.get(0));
            assertEquals(0, r.finish().exit());
        }
    }

    /** The first lines of the stream, up to {@code events} events' worth, read with a deadline. */
    private List<String> streamLines(int port, String token, int blankLines) throws Exception {
        HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/stream"))
                .header("Authorization", "Bearer " + token).timeout(Duration.ofSeconds(20)).build();
        HttpResponse<InputStream> resp = http.send(req, HttpResponse.BodyHandlers.ofInputStream());
        assertEquals(200, resp.statusCode());
        assertTrue(resp.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream"));
        List<String> lines = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(resp.body(), StandardCharsets.UTF_8))) {
            int blanks = 0;
            String line;
            while (blanks < blankLines && (line = in.readLine()) != null) {
                lines.add(line);
                blanks += line.isEmpty() ? 1 : 0;
            }
        }
        return lines;
    }

    /** The API answers once the runtime's components are up; polled with a deadline. */
    private HttpResponse<String> awaitApi(int port, String token) throws Exception {
        long deadline = System.nanoTime() + It.TIMEOUT.toNanos();
        HttpResponse<String> last = null;
        while (System.nanoTime() < deadline) {
            last = call(port, "GET", "/api/v1/status", token, null);
            if (last.statusCode() == 200) {
                return last;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the API did not answer 200 within " + It.TIMEOUT.toSeconds() + " s: "
                + (last == null ? "nothing" : last.statusCode() + " " + last.body()));
    }

    /**
     * Tokens on the running master, from the command line, without a restart (docs/security.md,
     * "Tokens"): a revoked token is refused within a second, a rotated-in key issues tokens the
     * master takes at once, the old key's tokens go when its line is removed, and an expired token
     * says so.
     */
    @Test
    void tokensAreRevokedAndKeysRotatedWhileTheMasterRuns() throws Exception {
        assumeTrue(It.framework().equals("felix"), "once per build");
        Path secret = tmp.resolve("granary.secret");
        String reader = token("reader/rita");
        String lost = token("reader/lost");
        try (ListeningRuntime r = ListeningRuntime.start(tmp, "--demo=false", "--piped", "--listen=127.0.0.1:0",
                "--secret=" + secret)) {
            int port = r.awaitListening("http");
            awaitApi(port, reader);
            assertEquals(200, call(port, "GET", "/api/v1/status", lost, null).statusCode());

            ChildProcess.Result revoke = ChildProcess.run(It.runnableJar(), tmp, "", "--revoke-token=" + lost, "--secret=" + secret);
            assertEquals(0, revoke.exit(), revoke::toString);
            assertTrue(revoke.out().contains("token " + granary.protocol.link.Tokens.id(lost) + " is revoked"), revoke::toString);
            HttpResponse<String> refused = awaitStatus(port, lost, 401);
            assertTrue(refused.body().contains("revoked (id " + granary.protocol.link.Tokens.id(lost) + ")"), refused.body());
            assertEquals(200, call(port, "GET", "/api/v1/status", reader, null).statusCode(), "other tokens are not touched");

            ChildProcess.Result rotate = ChildProcess.run(It.runnableJar(), tmp, "", "--rotate-secret", "--secret=" + secret);
            assertEquals(0, rotate.exit(), rotate::toString);
            assertTrue(rotate.out().startsWith("key k2 issues tokens"), rotate::toString);
            String fresh = token("reader/new");
            assertTrue(fresh.contains(".k2~"), fresh);
            awaitStatus(port, fresh, 200);
            assertEquals(200, call(port, "GET", "/api/v1/status", reader, null).statusCode(), "the old key still verifies");
            Files.write(secret, Files.readAllLines(secret).subList(0, 1));
            HttpResponse<String> rotatedOut = awaitStatus(port, reader, 401);
            assertTrue(rotatedOut.body().contains("issued under key k1, which this master no longer holds"), rotatedOut.body());
            assertEquals(200, call(port, "GET", "/api/v1/status", fresh, null).statusCode());

            ChildProcess.Result brief = ChildProcess.run(It.runnableJar(), tmp, "", "--issue-token=reader/brief", "--expires=1m",
                    "--secret=" + secret);
            assertEquals(0, brief.exit(), brief::toString);
            assertEquals(200, call(port, "GET", "/api/v1/status", brief.out().strip(), null).statusCode());
            assertEquals(0, r.finish().exit());
        }
    }

    /** Calls GET /api/v1/status with {@code token} until it answers {@code status} (files are read again within a second). */
    private HttpResponse<String> awaitStatus(int port, String token, int status) throws Exception {
        long until = System.nanoTime() + 10_000_000_000L;
        HttpResponse<String> last;
        do {
            last = call(port, "GET", "/api/v1/status", token, null);
            if (last.statusCode() == status) {
                return last;
            }
            Thread.sleep(100);
        } while (System.nanoTime() < until);
        throw new AssertionError("not " + status + " within 10 s: " + last.statusCode() + " " + last.body());
    }
}
