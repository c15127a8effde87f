package granary.bench.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Runs the wire load for ~3 s with 20 agents and 2 job masters against a ProtocolMaster on
 * JdkHttpServer in this JVM (no child JVM): slots must be delivered and exits turned over. No
 * timing is checked.
 */
class WireLoadSmokeTest {

    @Test
    void agentsGetSlotsAndTurnThemOver() throws Exception {
        Map<String, Object> r = WireLoad.run(WireLoad.Options.parse("--same-jvm", "--agents=20", "--jobmasters=2",
                "--seconds=3", "--warmup=1", "--work-ms=100"));
        assertEquals(20, r.get("agents"));
        assertTrue(((Number) r.get("heartbeats")).longValue() > 0, "heartbeats were answered: " + r);
        assertTrue(((Number) r.get("slots_started_per_s")).doubleValue() > 0, "slots were delivered: " + r);
        assertTrue(((Number) r.get("exits_per_s")).doubleValue() > 0, "exits were reported: " + r);
        assertTrue(((Number) r.get("turnarounds")).longValue() > 0, "freed slots were handed out again: " + r);
        assertTrue(((Number) r.get("hint_placements_per_s")).doubleValue() >= 0, "job masters polled: " + r);
        assertTrue(((Number) r.get("master_deliveries")).longValue() > 0, "the master delivered caps and hints: " + r);
        assertEquals(0L, ((Number) r.get("refusals")).longValue(), "nothing refused: " + r);
    }

    /**
     * {@code --transport=auto}: HTTP/1.1 against WireMaster (in this JVM, or without a runtime jar),
     * which speaks nothing else; against a runtime, HTTP/2 once two sockets a peer would not fit the
     * open-file limit.
     */
    @Test
    void theTransportFollowsTheMasterAndTheOpenFileLimit() {
        assertEquals("nio", WireLoad.Options.parse("--same-jvm", "--agents=1000000").transport());
        assertEquals("nio", WireLoad.Options.parse("--in-process", "--runtime=no-such.jar", "--agents=1000000").transport());
        String big = Proc.openFilesLimit() < 2L * (1_000_000 + 10) + 2_000 ? "h2" : "nio";
        assertEquals(big, WireLoad.Options.parse("--master=http://127.0.0.1:1", "--secret=s", "--agents=1000000").transport());
        assertEquals("nio", WireLoad.Options.parse("--master=http://127.0.0.1:1", "--secret=s", "--agents=10").transport());
        assertEquals("h2", WireLoad.Options.parse("--same-jvm", "--transport=h2").transport(), "as asked");
    }

    /** The runtime's {@code granary:wire} line, as MasterComponent writes it, gives the master's post times. */
    @Test
    void readsTheMastersShareFromItsWireLine() {
        String line = "agents=1000 live=1000 jobmasters=10 deliveries=52364 deliveryP50=0ms deliveryP99=265ms"
                + " hints=700 hintP50=12ms hintP99=589ms posts=64290 postP50=0.4ms postP99=12.5ms";
        assertEquals(List.of(0.4, 12.5), List.of(WireLoad.parsePosts(line)[0], WireLoad.parsePosts(line)[1]));
        assertEquals(List.of(52364L, 0L, 265L), List.of(WireLoad.parseWire(line)[0], WireLoad.parseWire(line)[1], WireLoad.parseWire(line)[2]));
        assertEquals(List.of(700L, 12L, 589L), List.of(WireLoad.parseHints(line)[0], WireLoad.parseHints(line)[1], WireLoad.parseHints(line)[2]));
        assertEquals(null, WireLoad.parseHints("agents=1 live=1 jobmasters=0 deliveries=0 deliveryP50=-1ms deliveryP99=-1ms"),
                "a master before caps and hints were apart");
        assertEquals(null, WireLoad.parsePosts("agents=1 live=1 jobmasters=0 deliveries=0 deliveryP50=-1ms deliveryP99=-1ms"),
                "a master that does not say them");
    }
}
