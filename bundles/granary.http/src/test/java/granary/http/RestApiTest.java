package granary.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every read and write of the REST API through a real Jetty, a real HTTP client and a real engine. */
class RestApiTest {

    static final String WC = """
            {"id": "wc", "group": "root.batch", "user": "alice",
             "units": [{"name": "map", "slot": {"cpu": 100, "mem": 1024}, "desired": 10, "priority": 5}]}""";
    static final String BIG = """
            {"id": "big", "group": "root.prod", "user": "bob",
             "units": [{"name": "work", "slot": {"cpu": 100, "mem": 1024}, "desired": 40, "priority": 5}]}""";
    static final String TABLE = """
            {"default": {"g0": {"GroupId": 1, "MaxQuota": 20, "MinQuota": 8}, "g1": {"GroupId": 2, "MaxQuota": 20, "MinQuota": 8}},
             "0-6": {"g0": {"GroupId": 1, "MaxQuota": 30, "MinQuota": 12}, "g1": {"GroupId": 2, "MaxQuota": 15, "MinQuota": 4}}}""";

    @TempDir
    Path dir;
    ApiHarness h;

    @BeforeEach
    void start() throws Exception {
        h = new ApiHarness(dir.resolve("audit.log"), 4096);
    }

    @AfterEach
    void stop() throws Exception {
        h.close();
    }

    @Test
    void statusHasTheConsolesKeys() throws Exception {
        JsonObject s = h.get("/status", h.reader).object();
        for (String key : List.of("time", "nodes", "capacity", "free", "used_share", "jobs", "waiting_units", "waiting_slots",
                "granted_slots", "decisions", "health")) {
            assertTrue(s.has(key), key + " in " + s);
        }
        assertEquals(4, s.get("nodes").getAsInt());
        assertEquals(3200, s.getAsJsonObject("capacity").get("cpu").getAsLong());
        assertEquals("ok", s.get("health").getAsString());
        assertTrue(s.keySet().stream().anyMatch(k -> k.startsWith("policy.")), s.toString());
    }

    @Test
    void nodesAreFilteredAndPaged() throws Exception {
        JsonObject all = h.get("/nodes", h.reader).object();
        assertEquals(4, all.get("total").getAsInt());
        assertEquals("n1", all.getAsJsonArray("items").get(0).getAsJsonObject().get("name").getAsString());
        assertEquals(2, h.get("/nodes?room=r2", h.reader).object().get("total").getAsInt());
        JsonObject ssd = h.get("/nodes?label=disk=ssd", h.reader).object();
        assertEquals(1, ssd.get("total").getAsInt());
        assertEquals("n4", ssd.getAsJsonArray("items").get(0).getAsJsonObject().get("name").getAsString());
        assertEquals(1, h.get("/nodes?label=disk", h.reader).object().get("total").getAsInt());
        assertEquals(4, h.get("/nodes?state=idle", h.reader).object().get("total").getAsInt());

        JsonObject p1 = h.get("/nodes?limit=3", h.reader).object();
        assertEquals(3, p1.getAsJsonArray("items").size());
        assertEquals("limit=3&offset=3", p1.get("next").getAsString());
        JsonObject p2 = h.get("/nodes?" + p1.get("next").getAsString(), h.reader).object();
        assertEquals(1, p2.getAsJsonArray("items").size());
        assertEquals("n4", p2.getAsJsonArray("items").get(0).getAsJsonObject().get("name").getAsString());
        assertFalse(p2.has("next"), "the last page has no next");

        ApiHarness.Reply bad = h.get("/nodes?limit=0", h.reader);
        assertEquals(400, bad.status());
        assertEquals("/api/v1/problems/invalid-parameter", bad.object().get("type").getAsString());
        assertEquals(400, h.get("/nodes?state=sleepy", h.reader).status());
        assertEquals(404, h.get("/nodes/n9", h.reader).status());
        assertEquals("r1", h.get("/nodes/n1", h.reader).object().get("room").getAsString());
    }

    /**
     * A body is read whole however it comes: with a Content-Length larger than the first buffer
     * set aside for it (200 KB of spaces around the job), and in chunks with no length at all.
     */
    @Test
    void bodiesLongerThanTheFirstBufferAndChunkedBodiesAreReadWhole() throws Exception {
        String padded = WC.replace("\"wc\"", "\"padded\"") + " ".repeat(200_000);
        assertEquals(201, h.send("POST", "/jobs", h.operator, padded).status());
        byte[] chunked = (WC.replace("\"wc\"", "\"chunked\"") + " ".repeat(5_000)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        java.net.http.HttpRequest r = java.net.http.HttpRequest.newBuilder(h.base.resolve(Api.BASE + "/jobs"))
                .timeout(java.time.Duration.ofSeconds(20)).header("Authorization", "Bearer " + h.operator)
                .header("Content-Type", "application/json")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(chunked))).build();
        assertEquals(201, h.http.send(r, java.net.http.HttpResponse.BodyHandlers.ofString()).statusCode());
        assertEquals("padded", h.get("/jobs/padded", h.reader).object().get("id").getAsString());
        assertEquals("chunked", h.get("/jobs/chunked", h.reader).object().get("id").getAsString());
    }

    @Test
    void aJobIsSubmittedReadFilteredMovedAndCancelled() throws Exception {
        ApiHarness.Reply created = h.send("POST", "/jobs", h.operator, WC);
        assertEquals(201, created.status(), created.toString());
        assertEquals("/api/v1/jobs/wc", created.header("Location"));
        JsonObject sub = created.object().getAsJsonArray("submitted").get(0).getAsJsonObject();
        assertEquals(10, sub.get("granted").getAsLong());
        assertEquals(10, sub.get("desired").getAsLong());

        JsonObject job = h.get("/jobs/wc", h.reader).object();
        assertEquals("running", job.get("state").getAsString());
        JsonObject unit = job.getAsJsonArray("units").get(0).getAsJsonObject();
        int placed = 0;
        for (var g : unit.getAsJsonArray("grants")) {
            placed += g.getAsJsonObject().get("slots").getAsInt();
        }
        assertEquals(10, placed, "the grants add up to the granted slots");

        assertEquals(201, h.send("POST", "/jobs", h.operator, BIG).status());
        assertEquals(2, h.get("/jobs", h.reader).object().get("total").getAsInt());
        assertEquals(1, h.get("/jobs?user=bob", h.reader).object().get("total").getAsInt());
        assertEquals(1, h.get("/jobs?queue=root.prod", h.reader).object().get("total").getAsInt());
        assertEquals(2, h.get("/jobs?queue=root", h.reader).object().get("total").getAsInt(), "a queue includes those below it");
        assertEquals(0, h.get("/jobs?queue=root.pr", h.reader).object().get("total").getAsInt(), "not a name prefix");

        ApiHarness.Reply again = h.send("POST", "/jobs", h.operator, WC);
        assertEquals(409, again.status());
        assertEquals("/api/v1/problems/exists", again.object().get("type").getAsString());

        JsonObject moved = h.send("PUT", "/jobs/wc/queue", h.operator, "{\"queue\": \"root.other\"}").object();
        assertEquals("root.other", moved.get("queue").getAsString());
        assertEquals("root.other", h.get("/jobs/wc", h.reader).object().get("queue").getAsString());

        JsonObject cancelled = h.call("DELETE", "/jobs/wc", h.operator, null, null).object();
        assertEquals(10, cancelled.get("released").getAsLong());
        assertEquals(404, h.get("/jobs/wc", h.reader).status());
        assertEquals(404, h.call("DELETE", "/jobs/wc", h.operator, null, null).status());
    }

    @Test
    void whyExplainsAWaitingUnitWithItsNumbers() throws Exception {
        assertEquals(201, h.send("POST", "/jobs", h.operator, BIG).status());
        JsonObject why = h.get("/jobs/big/why", h.reader).object();
        assertEquals("big", why.get("job").getAsString());
        JsonObject unit = why.getAsJsonArray("units").get(0).getAsJsonObject();
        assertEquals(8, unit.get("waiting").getAsInt(), unit.toString());
        String sentences = why.getAsJsonArray("sentences").toString();
        assertTrue(sentences.contains("waiting for 8 of 40 slots (32 granted)"), sentences);
        assertTrue(sentences.contains("no node has enough free cpu"), sentences);
        JsonObject reason = unit.getAsJsonArray("reasons").get(0).getAsJsonObject();
        assertEquals("NO_FIT", reason.get("code").getAsString(), reason.toString());
        assertTrue(reason.get("count").getAsLong() >= 1, reason.toString());
        assertEquals("waiting", why.get("state").getAsString());
        assertEquals(404, h.get("/jobs/nope/why", h.reader).status());
    }

    @Test
    void blacklistingANodeTakesItOutOfNewWork() throws Exception {
        JsonObject b = h.send("PUT", "/nodes/n1/blacklist", h.operator, null).object();
        assertTrue(b.get("blacklisted").getAsBoolean());
        assertEquals("blacklisted", h.get("/nodes/n1", h.reader).object().get("state").getAsString());
        assertEquals(1, h.get("/nodes?state=blacklisted", h.reader).object().get("total").getAsInt());
        assertEquals(201, h.send("POST", "/jobs", h.operator, BIG).status());
        assertEquals(0, h.get("/nodes/n1", h.reader).object().getAsJsonObject("units").size(), "nothing placed on it");
        JsonObject u = h.call("DELETE", "/nodes/n1/blacklist", h.operator, null, null).object();
        assertEquals(8, u.get("granted").getAsLong(), "its capacity goes to the waiting unit at once");
        assertEquals(404, h.send("PUT", "/nodes/n9/blacklist", h.operator, null).status());
    }

    @Test
    void queuesAndPoliciesAreListedAndAPolicyIsSwapped() throws Exception {
        h.send("POST", "/jobs", h.operator, WC);
        JsonArray queues = h.get("/queues", h.reader).object().getAsJsonArray("queues");
        assertEquals("root.batch", queues.get(0).getAsJsonObject().get("path").getAsString());
        assertEquals(10, queues.get(0).getAsJsonObject().get("usedSlots").getAsLong());

        JsonObject p = h.get("/policies", h.reader).object();
        JsonObject fifo = find(p.getAsJsonArray("policies"), "fifo");
        assertTrue(fifo.get("active").getAsBoolean());
        JsonObject quota = find(p.getAsJsonArray("policies"), "quota");
        assertTrue(quota.getAsJsonArray("reports").toString().contains("/api/v1/policies/quota/reports/billing"), quota.toString());
        assertTrue(quota.getAsJsonArray("resources").toString().contains("\"href\":\"/api/v1/quota/state\""), quota.toString());
        assertTrue(quota.getAsJsonArray("resources").toString().contains("\"document\":\"quota table\""), quota.toString());
        JsonObject state = null;
        for (var r : quota.getAsJsonArray("resources")) {
            if (r.getAsJsonObject().get("href").getAsString().equals("/api/v1/quota/state")) {
                state = r.getAsJsonObject();
            }
        }
        assertNotNull(state, quota.toString());
        assertEquals("/api/v1/quota", state.get("revisionOf").getAsString(), "a reports resource names the document whose revision it carries");
        assertEquals("[\"quota\",\"billing\"]", state.getAsJsonArray("reports").toString());
        assertTrue(quota.getAsJsonArray("metrics").toString().contains("granary_group_quota_min"), quota.toString());
        assertTrue(quota.getAsJsonArray("reasonCodes").toString().contains("\"code\":\"DRAWBACK\""), quota.toString());

        JsonObject on = h.send("PUT", "/policies/fair/active", h.admin, "{\"active\": true}").object();
        assertTrue(on.get("active").getAsBoolean());
        assertTrue(h.get("/policies", h.reader).object().getAsJsonObject("inEffect").toString().contains("fair"));
        h.send("PUT", "/policies/fair/active", h.admin, "{\"active\": false}");
        assertFalse(h.get("/policies", h.reader).object().getAsJsonObject("inEffect").toString().contains("fair"));
        assertEquals(404, h.send("PUT", "/policies/nope/active", h.admin, "{\"active\": true}").status());
    }

    @Test
    void aQuotaTableIsDryRunDiffedLoadedAndReadBackWithItsRevision() throws Exception {
        ApiHarness.Reply none = h.get("/quota", h.reader);
        assertEquals(404, none.status(), none.toString());

        JsonObject dry = h.send("PUT", "/quota?dryRun=true", h.admin, TABLE).object();
        assertTrue(dry.get("dryRun").getAsBoolean());
        assertEquals("none", dry.get("revision").getAsString());
        assertEquals(1, dry.getAsJsonArray("diff").size(), "one change: the whole table added");
        assertEquals(404, h.get("/quota", h.reader).status(), "a dry run changes nothing");

        ApiHarness.Reply loaded = h.send("PUT", "/quota", h.admin, TABLE);
        assertEquals(200, loaded.status(), loaded.toString());
        String rev = loaded.object().get("revision").getAsString();
        assertEquals("\"" + rev + "\"", loaded.header("ETag"));
        assertFalse(loaded.object().getAsJsonArray("notes").isEmpty());

        ApiHarness.Reply read = h.get("/quota", h.reader);
        assertEquals("\"" + rev + "\"", read.header("ETag"));
        assertEquals(8, read.object().getAsJsonObject("default").getAsJsonObject("g0").get("MinQuota").getAsInt());

        String edited = TABLE.replace("\"MaxQuota\": 15", "\"MaxQuota\": 16");
        JsonObject diff = h.send("PUT", "/quota?dryRun=true", h.admin, edited).object();
        JsonArray changes = diff.getAsJsonArray("diff");
        assertEquals(1, changes.size(), changes.toString());
        JsonObject change = changes.get(0).getAsJsonObject();
        assertEquals("changed", change.get("op").getAsString());
        assertEquals("$[\"0-6\"].g1.MaxQuota", change.get("path").getAsString());
        assertEquals(15, change.get("from").getAsInt());
        assertEquals(16, change.get("to").getAsInt());

        ApiHarness.Reply ok = h.send("PUT", "/quota", h.admin, edited, "If-Match", "\"" + rev + "\"");
        assertEquals(200, ok.status(), ok.toString());
        ApiHarness.Reply stale = h.send("PUT", "/quota", h.admin, TABLE, "If-Match", "\"" + rev + "\"");
        assertEquals(409, stale.status(), "an edit of an older revision is refused");
        assertEquals("/api/v1/problems/stale-revision", stale.object().get("type").getAsString());
        assertEquals(16, h.get("/quota", h.reader).object().getAsJsonObject("0-6").getAsJsonObject("g1").get("MaxQuota").getAsInt(),
                "the refused write changed nothing");

        ApiHarness.Reply invalid = h.send("PUT", "/quota", h.admin, TABLE.replace("\"MinQuota\": 12", "\"MinQuota\": 40"));
        assertEquals(400, invalid.status(), invalid.toString());
        assertTrue(invalid.body().contains("0-6"), "the problem names the slice: " + invalid.body());

        JsonObject state = h.get("/quota/state", h.reader).object();
        assertTrue(state.getAsJsonObject("quota").getAsJsonObject("sections").has("groups"), state.toString());
        assertTrue(state.has("billing"));
        assertEquals(200, h.get("/policies/quota/reports/billing?day=2026-11-26", h.reader).status());
        assertEquals(400, h.get("/policies/quota/reports/billing?day=2026-02-30", h.reader).status());
        assertEquals(404, h.get("/policies/quota/reports/nope", h.reader).status());
    }

    @Test
    void aQueueTreeIsValidatedAndLoaded() throws Exception {
        String tree = """
                {"queues": {"prod": {"capacity": "60%"}, "dev": {"capacity": "40%"}}}""";
        ApiHarness.Reply dry = h.send("PUT", "/queues?dryRun=true", h.admin, tree);
        assertEquals(200, dry.status(), dry.toString());
        assertEquals(List.of("root.dev", "root.prod"), sorted(dry.object().getAsJsonArray("leaves")));
        assertNull(h.get("/queues", h.reader).object().get("treeLeaves"), "a dry run loads nothing");
        assertEquals(200, h.send("PUT", "/queues", h.admin, tree).status());
        assertEquals(List.of("root.dev", "root.prod"), sorted(h.get("/queues", h.reader).object().getAsJsonArray("treeLeaves")));
        ApiHarness.Reply bad = h.send("PUT", "/queues", h.admin, "{\"queues\": {\"a\": {\"capacity\": \"160%\"}}}");
        assertEquals(400, bad.status(), bad.toString());
    }

    @Test
    void theReservationsAndPeersSayWhenTheirPartIsMissing() throws Exception {
        ApiHarness.Reply r = h.get("/reservations", h.reader);   // the reservation policy, which declares it, is not installed
        assertEquals(404, r.status(), r.toString());
        assertNotNull(r.object().get("type"), "problem JSON: " + r);
        assertEquals(404, h.get("/agents", h.reader).status(), "no master side in this fixture");
    }

    @Test
    void theAuditLogRecordsEveryWriteAcceptedOrRefused() throws Exception {
        h.send("POST", "/jobs", h.operator, WC);
        h.send("POST", "/jobs", h.reader, WC);
        h.send("PUT", "/quota", h.admin, "{");
        JsonArray audit = h.get("/audit", h.admin).json().getAsJsonArray();
        assertEquals(3, audit.size(), audit.toString());
        JsonObject first = audit.get(0).getAsJsonObject();
        assertEquals("operator/otto", first.get("who").getAsString());
        assertEquals("POST", first.get("method").getAsString());
        assertEquals("/api/v1/jobs", first.get("path").getAsString());
        assertEquals(201, first.get("status").getAsInt());
        assertEquals(403, audit.get(1).getAsJsonObject().get("status").getAsInt());
        assertEquals("reader/rita", audit.get(1).getAsJsonObject().get("who").getAsString());
        assertEquals(400, audit.get(2).getAsJsonObject().get("status").getAsInt());
        List<String> lines = Files.readAllLines(dir.resolve("audit.log"));
        assertEquals(3, lines.size(), "one line per write, on disk too");
        assertTrue(lines.get(2).contains("\"who\":\"admin/ada\""), lines.get(2));
        assertEquals(403, h.get("/audit", h.operator).status(), "only admins read the audit log");
        assertEquals(3, h.get("/audit", h.admin).json().getAsJsonArray().size(), "reads are not audited");
    }

    @Test
    void tokensAndRolesAreChecked() throws Exception {
        ApiHarness.Reply none = h.get("/status", null);
        assertEquals(401, none.status());
        assertEquals("Bearer realm=\"granary\"", none.header("WWW-Authenticate"));
        assertEquals("application/problem+json;charset=utf-8", none.header("Content-Type").replace(" ", "").toLowerCase());
        assertEquals(401, h.get("/status", "reader/rita.AAAA").status(), "a forged token");
        ApiHarness.Reply peer = h.get("/status", h.agent);
        assertEquals(403, peer.status());
        assertTrue(peer.object().get("detail").getAsString().contains("agent/n1 is a peer of the protocol"));
        assertEquals(403, h.send("POST", "/jobs", h.reader, WC).status());
        assertEquals(403, h.send("PUT", "/quota", h.operator, TABLE).status());
        assertEquals(403, h.send("PUT", "/policies/fair/active", h.operator, "{\"active\": true}").status());
        assertEquals(200, h.get("/jobs", h.reader).status(), "a reader reads");
    }

    private static JsonObject find(JsonArray a, String name) {
        for (var e : a) {
            if (e.getAsJsonObject().get("name").getAsString().equals(name)) {
                return e.getAsJsonObject();
            }
        }
        throw new AssertionError(name + " not in " + a);
    }

    private static List<String> sorted(JsonArray a) {
        return a.asList().stream().map(e -> e.getAsString()).sorted().toList();
    }
}
