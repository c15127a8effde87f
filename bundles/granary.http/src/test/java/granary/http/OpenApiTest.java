package granary.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The OpenAPI description the master serves, checked against the real endpoints: every operation
 * it describes is called on a real Jetty and answers one of the statuses it documents.
 */
class OpenApiTest {

    /** For each operation: the path with its parameters filled, and a valid body where it takes one. */
    static final Map<String, String[]> SAMPLES = Map.ofEntries(
            Map.entry("getStatus", new String[] {"/status", null}),
            Map.entry("listNodes", new String[] {"/nodes?room=r1&limit=1", null}),
            Map.entry("getNode", new String[] {"/nodes/n1", null}),
            Map.entry("blacklistNode", new String[] {"/nodes/n2/blacklist", null}),
            Map.entry("unblacklistNode", new String[] {"/nodes/n2/blacklist", null}),
            Map.entry("listJobs", new String[] {"/jobs?state=running", null}),
            Map.entry("submitJobs", new String[] {"/jobs", RestApiTest.BIG}),
            Map.entry("getJob", new String[] {"/jobs/wc", null}),
            Map.entry("cancelJob", new String[] {"/jobs/big", null}),
            Map.entry("moveJob", new String[] {"/jobs/wc/queue", "{\"queue\": \"root.x\"}"}),
            Map.entry("whyJob", new String[] {"/jobs/wc/why", null}),
            Map.entry("listQueues", new String[] {"/queues", null}),
            Map.entry("loadQueues", new String[] {"/queues?dryRun=true", "{\"queues\": {\"a\": {\"capacity\": \"100%\"}}}"}),
            Map.entry("getQuota", new String[] {"/quota", null}),
            Map.entry("loadQuota", new String[] {"/quota", RestApiTest.TABLE}),
            Map.entry("getQuotaState", new String[] {"/quota/state", null}),
            Map.entry("listPolicies", new String[] {"/policies", null}),
            Map.entry("activatePolicy", new String[] {"/policies/fifo/active", "{\"active\": true}"}),
            Map.entry("readPolicyReport", new String[] {"/policies/quota/reports/quota", null}),
            Map.entry("listAgents", new String[] {"/agents", null}),
            Map.entry("listJobMasters", new String[] {"/jobmasters", null}),
            Map.entry("readAudit", new String[] {"/audit", null}),
            Map.entry("stream", new String[] {"/stream", null}),
            Map.entry("openApi", new String[] {"/openapi.json", null}));

    ApiHarness h;

    @BeforeEach
    void start() throws Exception {
        h = new ApiHarness(null, 1024);
        assertEquals(201, h.send("POST", "/jobs", h.operator, RestApiTest.WC).status());
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    @Test
    void everyDescribedOperationAnswersADocumentedStatus() throws Exception {
        JsonObject doc = h.get("/openapi.json", h.reader).object();
        assertEquals("3.1.0", doc.get("openapi").getAsString());
        JsonObject paths = doc.getAsJsonObject("paths");
        Map<String, String> seen = new TreeMap<>();
        // the order: reads first, then writes, deletes last (so cancelJob finds the job submitJobs made)
        for (String pass : new String[] {"get", "post", "put", "delete"}) {
            for (String path : paths.keySet()) {
                JsonObject ops = paths.getAsJsonObject(path);
                if (!ops.has(pass)) {
                    continue;
                }
                JsonObject op = ops.getAsJsonObject(pass);
                String id = op.get("operationId").getAsString();
                String[] sample = SAMPLES.get(id);
                assertTrue(sample != null, "no sample for the described operation " + id + " (" + pass + " " + path + "): add one");
                assertTrue(sample[0].replaceAll("\\?.*", "").matches(path.replaceAll("\\{[^}]+}", "[^/]+")),
                        id + ": sample " + sample[0] + " is not " + path);
                int status;
                if (id.equals("stream")) {
                    try (SseClient s = new SseClient(h.base.resolve(Api.BASE + sample[0]), h.reader, null)) {
                        status = s.status;
                        s.next("snapshot");
                    }
                } else {
                    status = h.call(pass.toUpperCase(), sample[0], h.admin, sample[1] == null ? null : "application/json", sample[1]).status();
                }
                assertTrue(op.getAsJsonObject("responses").has(Integer.toString(status)),
                        id + " answered " + status + ", which the description does not list: " + op.getAsJsonObject("responses").keySet());
                seen.put(id, pass + " " + path + " -> " + status);
            }
        }
        assertEquals(new TreeMap<>(SAMPLES).keySet(), seen.keySet(), "every sample is of a described operation");
        assertTrue(seen.get("getQuota").endsWith("404"), "the quota read came before the load: " + seen);
        assertTrue(seen.get("loadQuota").endsWith("200"), seen.get("loadQuota"));
    }

    @Test
    void everyOperationSaysItsRoleAndTheProblemSchemaIsDeclared() throws Exception {
        JsonObject doc = h.get("/openapi.json", h.reader).object();
        for (var p : doc.getAsJsonObject("paths").entrySet()) {
            for (var op : p.getValue().getAsJsonObject().entrySet()) {
                String role = op.getValue().getAsJsonObject().get("x-granary-role").getAsString();
                assertTrue(role.equals("reader") || role.equals("operator") || role.equals("admin"), p.getKey() + " " + op.getKey());
                assertTrue(op.getValue().getAsJsonObject().getAsJsonObject("responses").has("401"));
            }
        }
        assertTrue(doc.getAsJsonObject("components").getAsJsonObject("schemas").has("Problem"));
    }
}
