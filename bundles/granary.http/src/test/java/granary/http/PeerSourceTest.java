package granary.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.google.gson.JsonObject;
import granary.master.PeerStatus;
import org.junit.jupiter.api.Test;

/** {@code GET /agents} and {@code /jobmasters} items: what {@code granary:agents} and {@code granary:jobmasters} show. */
class PeerSourceTest {

    @Test
    void aJobMasterBeingRestartedSaysWhereItsRestartStands() {
        JsonObject o = PeerSource.json(new PeerStatus("job-master", "jm1", "restarting", 5, 61_000, 2, 8, 0, 1, "",
                "waiting for a node with room for cpu=50,mem=64 other than n1"));
        assertEquals("jm1", o.get("id").getAsString());
        assertEquals("restarting", o.get("state").getAsString());
        assertEquals(1, o.get("jobs").getAsInt());
        assertEquals("waiting for a node with room for cpu=50,mem=64 other than n1", o.get("restart").getAsString());
        assertFalse(PeerSource.json(new PeerStatus("job-master", "jm2", "live", 7, 10, 1, 1, 0, 1, "")).has("restart"),
                "nothing to say when no restart is under way");
    }

    @Test
    void anAgentHasItsEndpointAndWorkersAndNoJobs() {
        JsonObject o = PeerSource.json(new PeerStatus("agent", "n1", "live", 3, 5, 2, 4, 4, 0, "http://127.0.0.1:9"));
        assertEquals("n1", o.get("node").getAsString());
        assertEquals(4, o.get("workers").getAsInt());
        assertEquals("http://127.0.0.1:9", o.get("endpoint").getAsString());
        assertFalse(o.has("jobs"));
    }
}
