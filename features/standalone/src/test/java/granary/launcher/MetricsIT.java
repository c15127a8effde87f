package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} of the real runtime (this run's framework, the runnable jar's bundle set, its
 * HTTP server on a free loopback port): the Prometheus text format, with a submitted job's grants in
 * the counters and the engine's and the master's state, and a refused job counted by its reason; with a token configured, 401 without it; and
 * the runnable jar itself, started as the README shows, serving its demo's grants.
 */
class MetricsIT {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void aSubmittedJobsGrantsAppearInTheScrape(@TempDir Path dir) throws Exception {
        // the runtime selects quota by default: with a table, its report gives the group's bounds
        Path table = Files.writeString(dir.resolve("quota.json"),
                "{ \"default\": { \"batch\": {\"GroupId\":1,\"MaxQuota\":8,\"MinQuota\":2} } }");
        Map<String, Map<String, Object>> config = Map.of("granary.policy.quota",
                Map.of("tableFile", table.toString(), "workerSpans", "default:8"));
        try (ApiRuntime r = ApiRuntime.start(config)) {
            URI metrics = r.httpUri().resolve("/metrics");
            Map<String, Double> before = parse(get(metrics, null).body());
            double grantedBefore = sum(before, "granary_granted_slots_total");

            r.submit(new NodeAdded(new NodeSpec("m0", "r1", Resources.of(400, 4096))));
            r.submit(new NodeAdded(new NodeSpec("m1", "r1", Resources.of(400, 4096))));
            r.submit(new JobSubmitted(JobSpec.of("metrics-it", "batch",
                    UnitSpec.builder("tasks").slot(100, 512).desired(10).build())));
            int granted = r.query(v -> v.unit(new granary.api.model.UnitId("metrics-it", "tasks")).granted());
            assertEquals(8, granted, "two nodes of 4 cores: 8 of the 10 slots");

            HttpResponse<String> response = get(metrics, null);
            assertEquals(200, response.statusCode(), response::body);
            assertEquals("text/plain; version=0.0.4; charset=utf-8",
                    response.headers().firstValue("Content-Type").orElse("").toLowerCase().replace(";charset", "; charset"));
            Map<String, Double> after = parse(response.body());
            assertEquals(granted, sum(after, "granary_granted_slots_total") - grantedBefore, 1e-9,
                    "the job's grants in the counters");
            assertTrue(value(after, "granary_grants_total{kind=\"offline\"}") >= 2, "one grant per node at least");
            String group = r.query(v -> v.resolveGroup("batch"));
            assertEquals(2, value(after, "granary_group_waiting_slots{group=\"" + group + "\"}"));
            assertEquals(8, value(after, "granary_group_used_slots{group=\"" + group + "\"}"));
            assertTrue(value(after, "granary_nodes") >= 2);
            assertTrue(value(after, "granary_engine_events_total{event=\"JobSubmitted\",outcome=\"accepted\"}") >= 1);
            assertTrue(value(after, "granary_engine_event_duration_seconds_count{event=\"JobSubmitted\"}") >= 1);
            assertEquals(0, value(after, "granary_scrape_engine_timeout"));
            assertTrue(after.containsKey("granary_policy_changes_total{change=\"activated\"}"));
            // the quota policy's guarantee and limit of the group, read from its report
            assertEquals(2, value(after, "granary_group_quota_min{group=\"batch\",policy=\"quota\",resource=\"slots\",unit=\"integer\"}"));
            assertEquals(8, value(after, "granary_group_quota_max{group=\"batch\",policy=\"quota\",resource=\"slots\",unit=\"integer\"}"));
            // the master side serves (HTTP is on): no peers yet, serving or listening after its start
            assertEquals(1, value(after, "granary_master_active"));
            assertEquals(0, value(after, "granary_agents{state=\"live\"}"));
            assertNotNull(after.get("granary_master_delivery_latency_seconds_count{role=\"agent\"}"));
            assertNotNull(after.get("granary_master_delivery_latency_seconds_count{role=\"job_master\"}"));
            assertEquals(1, value(after, "granary_master_recovery_state{state=\"window_open\"}")
                    + value(after, "granary_master_recovery_state{state=\"rebuilding\"}")
                    + value(after, "granary_master_recovery_state{state=\"serving\"}"));
            // the JVM's own, from the client library's instrumentation bundle
            assertTrue(value(after, "jvm_memory_used_bytes{area=\"heap\"}") > 0);

            // a job of a group the quota table does not fund: refused, counted by the quota policy's reason code
            assertEquals(0, value(after, "granary_submissions_refused_total{reason=\"duplicate\",submission=\"job\"}"));
            java.util.concurrent.ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> r.submit(new JobSubmitted(JobSpec.of("unfunded-it", "elsewhere",
                            UnitSpec.builder("tasks").slot(100, 512).desired(1).build()))));
            assertTrue(refused.getCause().getMessage().contains("has no quota"), refused::toString);
            Map<String, Double> last = parse(get(metrics, null).body());
            assertEquals(1, value(last, "granary_submissions_refused_total{reason=\"unknown_group\",submission=\"job\"}"), last::toString);
            assertEquals(1, value(last, "granary_refused_jobs_total{reason=\"unknown_group\"}"));
            assertEquals(0, value(last, "granary_refused_jobs_total{reason=\"duplicate\"}"));
        }
    }

    @Test
    void withATokenConfiguredAScrapeNeedsIt() throws Exception {
        try (ApiRuntime r = ApiRuntime.start(Map.of("granary.metrics", Map.of("token", "metrics-s3cret")))) {
            URI metrics = r.httpUri().resolve("/metrics");
            HttpResponse<String> none = get(metrics, null);
            assertEquals(401, none.statusCode(), none::body);
            assertTrue(none.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"), none.headers()::toString);
            assertEquals(401, get(metrics, "Bearer wrong").statusCode());
            HttpResponse<String> ok = get(metrics, "Bearer metrics-s3cret");
            assertEquals(200, ok.statusCode(), ok::body);
            assertTrue(parse(ok.body()).containsKey("granary_nodes"));
        }
    }

    /** The runnable jar as the README starts it, with its demo cluster: the demo's grants reach the counters. */
    @Test
    void theRunnableJarServesMetricsOnItsListenAddress(@TempDir Path tmp) throws Exception {
        try (ListeningRuntime r = ListeningRuntime.start(tmp, "--piped", "--listen=127.0.0.1:0")) {
            URI metrics = URI.create("http://127.0.0.1:" + r.awaitListening("http") + "/metrics");
            AtomicReference<Map<String, Double>> last = new AtomicReference<>(Map.of());
            It.await("the demo's grants in granary_grants_total", () -> {
                try {
                    last.set(parse(get(metrics, null).body()));
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
                return sum(last.get(), "granary_grants_total") > 0;
            }, last::get, It.TIMEOUT);
            assertTrue(value(last.get(), "granary_nodes") > 0, "the demo's nodes");
            assertEquals(1, value(last.get(), "granary_master_active"));
            assertEquals(0, r.finish().exit());
        }
    }

    private static HttpResponse<String> get(URI uri, String authorization) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).GET();
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static final Pattern SAMPLE = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})? (\\S+)");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    /**
     * The samples of a scrape by {@code name{label="value",...}} (labels sorted by name). Every line
     * is a comment ({@code # HELP}, {@code # TYPE}) or a well-formed sample, and every sample's family
     * was typed before it.
     */
    static Map<String, Double> parse(String text) {
        Map<String, Double> samples = new LinkedHashMap<>();
        List<String> typed = new java.util.ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                typed.add(line.split(" ")[2]);
                continue;
            }
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            assertTrue(m.matches(), "not a sample line: " + line);
            String name = m.group(1);
            assertTrue(typed.stream().anyMatch(t -> name.equals(t) || name.startsWith(t + "_")), "untyped sample: " + line);
            Map<String, String> labels = new TreeMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            StringBuilder key = new StringBuilder(name);
            if (!labels.isEmpty()) {
                key.append('{');
                labels.forEach((k, v) -> key.append(key.charAt(key.length() - 1) == '{' ? "" : ",").append(k).append("=\"")
                        .append(v).append('"'));
                key.append('}');
            }
            String number = m.group(4);
            samples.put(key.toString(), number.equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(number));
        }
        return samples;
    }

    private static double value(Map<String, Double> samples, String key) {
        Double v = samples.get(key);
        assertNotNull(v, "no sample " + key + " in " + samples.keySet());
        return v;
    }

    /** The sum over every series of a family (e.g. both unit kinds). */
    private static double sum(Map<String, Double> samples, String name) {
        return samples.entrySet().stream().filter(e -> e.getKey().equals(name) || e.getKey().startsWith(name + "{"))
                .mapToDouble(Map.Entry::getValue).sum();
    }
}
