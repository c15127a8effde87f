package granary.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.Resources;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Register;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.link.Paths;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed and hostile messages posted to a live master over HTTP: each gets its status and an
 * error that says what is wrong, and none changes the cluster (checked after every case: still the
 * one node and the one job the setup made).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HostileMessagesTest {

    private static final Sender N1 = new Sender(Role.AGENT, "n1");
    private static final Sender N9 = new Sender(Role.AGENT, "n9");
    private static final Sender JM = new Sender(Role.JOB_MASTER, "jm1");
    private static final Sender JM2 = new Sender(Role.JOB_MASTER, "jm2");
    private final WireCodec codec = new WireCodec(Role.AGENT);
    private final HttpClient http = HttpClient.newHttpClient();
    private MasterHarness h;

    @BeforeAll
    void start() throws Exception {
        h = new MasterHarness();
        h.link(Role.AGENT, "n1", 1).send(new Register("n1", "r1", Map.of(), Resources.of(400, 4096), "http://127.0.0.1:9"));
        h.link(Role.JOB_MASTER, "jm1", 1).send(new Request(true, List.of(granary.api.model.JobSpec.of("j1", "default",
                granary.api.model.UnitSpec.builder("u").slot(100, 100).desired(2).build())), List.of(), List.of(), List.of()));
    }

    @AfterAll
    void stop() {
        h.close();
    }

    private String text(Sender s, long incarnation, long sequence, granary.protocol.Message m) {
        // compact, so that the cases can edit it with plain replacements
        return codec.text(Envelope.of(s, incarnation, sequence, m)).replaceAll("\\s*\\n\\s*", "").replace("\": ", "\":");
    }

    private String heartbeat() {
        return text(N1, 1, 2, new Heartbeat(List.of(), List.of(), null));
    }

    private String register(String node, String endpoint) {
        return text(N9, 1, 1, new Register(node, "r1", Map.of(), Resources.of(100, 100), endpoint));
    }

    private String request(boolean full, String extra) {
        return text(JM2, 1, 1, new Request(full, List.of(), List.of(), List.of(), List.of())).replace("\"releases\":[]", "\"releases\":[]" + extra);
    }

    /** Name, token identity ("-" none, "!x" the raw header), body, status, words of the error. */
    Stream<Arguments> hostile() {
        String hb = heartbeat();
        return Stream.of(
                Arguments.of("no token", "-", hb, 401, "no token"),
                Arguments.of("basic auth", "!Basic dXNlcjpwYXNz", hb, 401, "the Authorization header is not 'Bearer <token>'"),
                Arguments.of("forged mac", "!Bearer agent/n1.Zm9yZ2VkLW1hYw", hb, 401, "not valid"),
                Arguments.of("token without mac", "!Bearer agent/n1", hb, 401, "the token is not a token"),
                Arguments.of("token of an unknown role", "!Bearer robot/n1.Zm9v", hb, 401, "not valid"),
                Arguments.of("another node's token", "agent/n2", hb, 403, "the token of agent n2 cannot speak for agent n1"),
                Arguments.of("a job master's token on an agent's message", "job-master/jm1", hb, 403, "cannot speak for agent n1"),
                Arguments.of("a master speaking", "master/m2", text(new Sender(Role.MASTER, "m2"), 1, 1,
                        new Heartbeat(List.of(), List.of(), null)), 403, "a master does not send to a master"),
                Arguments.of("empty body", "agent/n1", "", 400, "not valid JSON"),
                Arguments.of("null", "agent/n1", "null", 400, "expected an object"),
                Arguments.of("an array", "agent/n1", "[" + hb + "]", 400, "expected an object, got an array"),
                Arguments.of("truncated", "agent/n1", hb.substring(0, hb.length() - 3), 400, "not valid JSON"),
                Arguments.of("version 1", "agent/n1", hb.replaceFirst("\"version\": ?2", "\"version\":1"), 400,
                        "protocol version 1 is not supported; this master speaks 2 to 6"),
                Arguments.of("version as text", "agent/n1", hb.replaceFirst("\"version\": ?2", "\"version\":\"2\""), 400,
                        "expected a whole number"),
                Arguments.of("no sender", "agent/n1", hb.replaceFirst("\"sender\": ?\\{[^}]*\\},", ""), 400, "is missing"),
                Arguments.of("unknown envelope field", "agent/n1", hb.replaceFirst("\\{", "{\"priority\":9,"), 400, "unknown field"),
                Arguments.of("sequence 0", "agent/n1", hb.replaceFirst("\"sequence\": ?2", "\"sequence\":0"), 400, "must be at least 1"),
                Arguments.of("negative sequence", "agent/n1", hb.replaceFirst("\"sequence\": ?2", "\"sequence\":-5"), 400, "must be at least 1"),
                Arguments.of("incarnation as text", "agent/n1", hb.replaceFirst("\"incarnation\": ?1", "\"incarnation\":\"one\""), 400,
                        "expected a whole number"),
                Arguments.of("unknown type", "agent/n1", hb.replace("\"heartbeat\"", "\"shutdown\""), 400, "expected one of register"),
                Arguments.of("an agent sending a request", "agent/n1", text(N1, 1, 2, new Request(true, List.of(), List.of(),
                        List.of(), List.of())), 400, "an agent sends register and heartbeat to the master, not request"),
                Arguments.of("a job master sending a cap", "job-master/jm1", text(JM, 1, 2, new granary.protocol.Cap(List.of(),
                        List.of())), 400, "a job master sends request to the master, not cap"),
                Arguments.of("a plan to the master", "job-master/jm1", text(JM, 1, 2, new granary.protocol.Plan(List.of())), 400,
                        "plans go to the agents"),
                Arguments.of("heartbeat of an unknown agent", "agent/n9", text(N9, 1, 1, new Heartbeat(List.of(), List.of(), null)),
                        409, "register first"),
                Arguments.of("registering another node", "agent/n9", register("n1", "http://127.0.0.1:9"), 400,
                        "agent n9 registers its own node, not n1"),
                Arguments.of("endpoint not http", "agent/n9", register("n9", "ftp://127.0.0.1:9"), 400, "expected an http:// or https:// URL"),
                Arguments.of("endpoint with CR LF", "agent/n9", register("n9", "http://127.0.0.1:9/\r\nX-Forged: 1"), 400,
                        "may not hold blanks or control characters"),
                Arguments.of("endpoint not a URL", "agent/n9", register("n9", "http://[::1"), 400, "expected an http:// or https:// URL"),
                Arguments.of("endpoint without a host", "agent/n9", register("n9", "http:///plans"), 400, "URL of a host"),
                Arguments.of("endpoint with user info", "agent/n9", register("n9", "http://jm1:secret@127.0.0.1:9"), 400,
                        "no user, query or fragment"),
                Arguments.of("endpoint with a query", "agent/n9", register("n9", "http://127.0.0.1:9/?steal=1"), 400,
                        "no user, query or fragment"),
                Arguments.of("endpoint too long", "agent/n9", register("n9", "http://127.0.0.1:9/" + "a".repeat(600)), 400,
                        "an endpoint of at most 512 characters, got 619"),
                Arguments.of("negative capacity", "agent/n9", register("n9", "http://127.0.0.1:9").replace("\"cpu\":100", "\"cpu\":-100"),
                        400, "cpu"),
                Arguments.of("capacity as text", "agent/n9", register("n9", "http://127.0.0.1:9").replace("\"cpu\":100", "\"cpu\":\"lots\""),
                        400, "cpu"),
                Arguments.of("labels not strings", "agent/n9", register("n9", "http://127.0.0.1:9").replace("\"labels\":{}", "\"labels\":{\"a\":1}"),
                        400, "labels"),
                Arguments.of("a delta before the full request", "job-master/jm2", request(false, ""), 409, "send a full request first"),
                Arguments.of("a desire for another's job", "job-master/jm2", text(JM2, 1, 1, new Request(true, List.of(),
                        List.of(new Request.Desire(new granary.api.model.UnitId("j1", "u"), 5)), List.of(), List.of())), 400,
                        "job j1 belongs to job master jm1"),
                Arguments.of("a release of an unknown job", "job-master/jm2", text(JM2, 1, 1, new Request(true, List.of(), List.of(),
                        List.of(), List.of(new Request.Release(new granary.api.model.UnitId("zz", "u"), "n1", 1)))), 400,
                        "job zz is not known to this master"),
                Arguments.of("a cancel of another's job", "job-master/jm2", text(JM2, 1, 1, new Request(true, List.of(), List.of(),
                        List.of("j1"), List.of())), 400, "belongs to job master jm1"),
                Arguments.of("a job with a negative desire", "job-master/jm2", text(JM2, 1, 1, new Request(true, List.of(), List.of(),
                        List.of(), List.of())).replace("\"jobs\":[]", "\"jobs\":[{\"id\":\"bad\",\"units\":[{\"name\":\"u\",\"slot\":{\"cpu\":1,\"mem\":1},\"desired\":-1}]}]"),
                        400, "desired"),
                Arguments.of("a job bigger than the cluster", "job-master/jm2", text(JM2, 1, 1, new Request(true, List.of(
                        granary.api.model.JobSpec.of("huge", "default", granary.api.model.UnitSpec.builder("u").slot(100_000, 100).desired(1).build())),
                        List.of(), List.of(), List.of())), 400, "huge"),
                Arguments.of("nesting too deep", "agent/n1", hb.replace("\"started\":[]", "\"started\":" + "[".repeat(40) + "]".repeat(40)), 400,
                        "nest"),
                Arguments.of("a huge string", "agent/n1", hb.replace("\"heartbeat\"", "\"" + "h".repeat(70_000) + "\""), 400, "65536"),
                Arguments.of("a 50-digit number", "agent/n1", hb.replaceFirst("\"sequence\": ?2", "\"sequence\":" + "9".repeat(50)), 400, "40"),
                Arguments.of("a negative slot in an exit", "agent/n1", hb.replace("\"exited\":[]",
                        "\"exited\":[{\"unit\":\"j1/u\",\"slot\":-1,\"exitCode\":0}]"), 400, "must not be negative"),
                Arguments.of("a gap in the sequence", "agent/n1", hb.replaceFirst("\"sequence\": ?2", "\"sequence\":7"), 409,
                        "resend from 2"),
                Arguments.of("an incarnation far in the future", "agent/n1", hb.replaceFirst("\"incarnation\": ?1",
                        "\"incarnation\":" + Long.MAX_VALUE), 400, "more than a day ahead of this master's clock"),
                Arguments.of("a newer incarnation's refused first message", "agent/n1", text(N1, 2, 1,
                        new Register("n1", "r1", Map.of(), Resources.of(400, 4096), "ftp://127.0.0.1:9")), 400, "expected an http://"),
                Arguments.of("a dead incarnation", "agent/n1", hb.replaceFirst("\"incarnation\": ?1", "\"incarnation\":0"), 409,
                        "which ended when 1 began"),
                Arguments.of("over 1 MiB", "agent/n1", hb.replace("\"heartbeat\"", "\"" + " ".repeat(1) + "heartbeat\"") + " ".repeat(WireCodec.MAX_MESSAGE_BYTES),
                        413, "1048576"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("hostile")
    void isRefusedWithItsErrorAndChangesNothing(String name, String identity, String body, int status, String words) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(h.server.url() + Paths.MESSAGES)).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofByteArray(body.getBytes(StandardCharsets.UTF_8)));
        if (identity.startsWith("!")) {
            b.header("Authorization", identity.substring(1));
        } else if (!identity.equals("-")) {
            b.header("Authorization", "Bearer " + h.tokens.issue(granary.protocol.link.Tokens.parseIdentity(identity)));
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(status, r.statusCode(), name + ": " + r.body());
        assertTrue(r.body().contains(words), name + ": expected '" + words + "' in " + r.body());
        assertEquals(1, (int) h.live.<Integer>query(v -> v.cluster().nodes().size()), name + " changed the nodes");
        assertEquals(1, (int) h.live.<Integer>query(v -> v.jobs().size()), name + " changed the jobs");
    }
}
