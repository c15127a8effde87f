package granary.planner.master;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import granary.planner.live.FakeMaster;
import org.junit.jupiter.api.Test;

/**
 * The planner's client names no route of a policy: it finds where the document it edits is served
 * in what the installed policies declare ({@code GET /policies}), and follows it there.
 */
class MasterClientRoutesTest {

    private static final String TABLE = "{\"QuotaTable\": []}";

    @Test
    void theTableIsReadWrittenAndItsStateReadWhereThePolicyDeclaresThem() throws Exception {
        try (FakeMaster master = new FakeMaster()) {
            master.offeringTableAt("/api/v1/plans/table");
            master.on("/api/v1/plans/table/state", r -> FakeMaster.Answer.json(200, "{\"revision\":\"r7\"}"));
            master.on("/api/v1/plans/table", r -> r.method().equals("GET")
                    ? FakeMaster.Answer.json(200, TABLE).with("ETag", "\"r7\"").with("Granary-Worker-Spans", "default:5000")
                    : FakeMaster.Answer.json(200, "{\"dryRun\":true,\"revision\":\"r7\",\"newRevision\":\"r8\",\"diff\":[]}"));
            MasterClient c = new MasterClient(master.uri(), "token");

            MasterClient.InForce t = c.table();
            assertEquals(TABLE, t.tableJson());
            assertEquals("r7", t.revision());
            assertEquals("default:5000", t.workerSpans());
            assertEquals("r7", c.tableState().get("revision").getAsString());
            MasterClient.Outcome o = c.putTable(TABLE, null, "r7", true);
            assertEquals("r8", o.newRevision());

            assertEquals(new MasterClient.Routes("quota", "/api/v1/plans/table", "/api/v1/plans/table", "/api/v1/plans/table/state"), c.routes());
            assertEquals(1, master.requests("/api/v1/policies").size(), "the routes are looked up once");
            assertEquals("PUT", master.requests("/api/v1/plans/table").stream().filter(r -> "dryRun=true".equals(r.query()))
                    .findFirst().orElseThrow().method());
            assertTrue(master.requests("/api/v1/quota").isEmpty(), "no route is assumed");
        }
    }

    @Test
    void aMasterWhereNoPolicyOffersTheDocumentIsAnsweredInWords() throws Exception {
        try (FakeMaster master = new FakeMaster()) {
            master.on("/api/v1/policies", r -> FakeMaster.Answer.json(200,
                    "{\"policies\":[{\"name\":\"fifo\",\"active\":true,\"resources\":[]}],\"inEffect\":{}}"));
            ApiError e = assertThrows(ApiError.class, () -> new MasterClient(master.uri(), null).table());
            assertEquals(404, e.status());
            assertEquals("not-offered", e.type());
            assertTrue(e.getMessage().startsWith("no policy installed on the master at " + master.uri() + " offers a quota table"), e.getMessage());
        }
    }

    @Test
    void anActivePolicyIsPreferredAndRoutesThatWentAreLookedUpAgain() throws Exception {
        try (FakeMaster master = new FakeMaster()) {
            List<String> policies = List.of(
                    "{\"policies\":[" + offering("old", false, "/api/v1/old") + "," + offering("new", true, "/api/v1/new") + "]}",
                    "{\"policies\":[" + offering("moved", true, "/api/v1/moved") + "]}");
            int[] asked = {0};
            master.on("/api/v1/policies", r -> FakeMaster.Answer.json(200, policies.get(Math.min(asked[0]++, 1))));
            master.on("/api/v1/new", r -> FakeMaster.Answer.json(404, "{\"type\":\"/api/v1/problems/not-found\",\"status\":404,\"detail\":\"gone\"}"));
            master.on("/api/v1/moved", r -> FakeMaster.Answer.json(200, TABLE).with("ETag", "\"m1\""));
            MasterClient c = new MasterClient(master.uri(), null);

            assertEquals("new", c.routes().policy(), "the active policy's routes, not the inactive one's");
            assertEquals("m1", c.table().revision(), "a 404 on known routes looks them up again, once");
            assertEquals("moved", c.routes().policy());
            assertEquals(1, master.requests("/api/v1/new").size());
        }
    }

    private static String offering(String policy, boolean active, String href) {
        return "{\"name\":\"" + policy + "\",\"active\":" + active + ",\"resources\":["
                + "{\"method\":\"GET\",\"href\":\"" + href + "\",\"kind\":\"read\",\"document\":\"quota table\"}]}";
    }
}
