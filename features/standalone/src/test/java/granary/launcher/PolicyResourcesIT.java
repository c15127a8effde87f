package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every policy module of the build reaches the runnable jar on this run's framework, and the HTTP API
 * serves every resource the installed policies declare (docs/api.md, "Resources policies declare")
 * without naming one: each is in the OpenAPI description with its operation, each report resource
 * answers 200, each read resource 200 or its documented 404 as problem JSON. A policy added as its own
 * folder plus one module line is checked here with no change to this test.
 */
class PolicyResourcesIT {

    private static final Pattern POLICY_MODULE = Pattern.compile("<module>bundles/granary\\.policy\\.([a-z0-9-]+)</module>");

    @TempDir
    Path tmp;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void everyPolicyModuleIsInstalledAndEveryResourceItDeclaresIsServed() throws Exception {
        Set<String> modules = policyModules();
        assertTrue(modules.size() >= 8, "policy modules of the root pom: " + modules);
        String reader = token("reader/rita");
        try (ListeningRuntime r = ListeningRuntime.start(tmp, "--demo=false", "--piped", "--listen=127.0.0.1:0",
                "--secret=" + tmp.resolve("granary.secret"))) {
            int port = r.awaitListening("http");
            JsonObject policies = awaitPolicies(port, reader, modules);
            JsonObject paths = JsonParser.parseString(get(port, "/api/v1/openapi.json", reader).body())
                    .getAsJsonObject().getAsJsonObject("paths");
            List<String> served = new ArrayList<>();
            for (JsonElement e : policies.getAsJsonArray("policies")) {
                JsonObject p = e.getAsJsonObject();
                if (!p.has("resources")) {
                    continue;   // installed without a declaration (the engine's own fallback order)
                }
                for (JsonElement re : p.getAsJsonArray("resources")) {
                    JsonObject res = re.getAsJsonObject();
                    String href = res.get("href").getAsString();
                    String method = res.get("method").getAsString();
                    String kind = res.get("kind").getAsString();
                    String path = href.substring("/api/v1".length());
                    if (!kind.equals("fields")) {
                        assertTrue(paths.has(path) && paths.getAsJsonObject(path).has(method.toLowerCase()),
                                p.get("name") + ": " + method + " " + path + " is not in the OpenAPI description: " + paths.keySet());
                    }
                    if (method.equals("GET")) {
                        HttpResponse<String> a = get(port, href, reader);
                        boolean ok = a.statusCode() == 200 || (kind.equals("read") && a.statusCode() == 404
                                && a.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"));
                        assertTrue(ok, p.get("name") + " " + kind + " " + href + " answered " + a.statusCode() + ": " + a.body());
                        served.add(p.get("name").getAsString() + " GET " + path + " " + a.statusCode());
                    }
                }
            }
            assertTrue(served.stream().anyMatch(s -> s.startsWith("quota GET /quota/state 200")), served.toString());
            assertTrue(served.size() >= 3, "GET resources served: " + served);
            System.out.println("served: " + served);
        }
    }

    /** The names of the policy modules the root pom lists. */
    static Set<String> policyModules() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent().getParent();
        Set<String> out = new TreeSet<>();
        Matcher m = POLICY_MODULE.matcher(Files.readString(root.resolve("pom.xml")));
        while (m.find()) {
            out.add(m.group(1));
        }
        try (Stream<Path> jars = Files.list(It.target().resolve("policy-bundles"))) {
            assertEquals(out.size(), jars.count(), "a jar in target/policy-bundles per policy module " + out + ": build from the"
                    + " root, or name every policy module in -pl (-pl features/standalone -am leaves out those nothing depends on)");
        }
        return out;
    }

    private JsonObject awaitPolicies(int port, String token, Set<String> modules) throws Exception {
        long deadline = System.nanoTime() + It.TIMEOUT.toNanos();
        Set<String> installed = Set.of();
        while (System.nanoTime() < deadline) {
            HttpResponse<String> a = get(port, "/api/v1/policies", token);
            if (a.statusCode() == 200) {
                JsonObject o = JsonParser.parseString(a.body()).getAsJsonObject();
                Set<String> names = new TreeSet<>();
                o.getAsJsonArray("policies").forEach(p -> names.add(p.getAsJsonObject().get("name").getAsString()));
                installed = names;
                if (names.containsAll(modules)) {
                    return o;
                }
            }
            Thread.sleep(100);   // the policy bundles start one by one: polled, with a deadline
        }
        throw new AssertionError("within " + It.TIMEOUT.toSeconds() + " s the runtime installed " + installed
                + ", not every policy module " + modules);
    }

    private String token(String identity) throws Exception {
        ChildProcess.Result r = ChildProcess.run(It.runnableJar(), tmp, "", "--issue-token=" + identity, "--create-secret",
                "--secret=" + tmp.resolve("granary.secret"));
        assertEquals(0, r.exit(), r::toString);
        return r.out().strip();
    }

    private HttpResponse<String> get(int port, String path, String token) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(20))
                .header("Authorization", "Bearer " + token).GET().build(), HttpResponse.BodyHandlers.ofString());
    }
}
