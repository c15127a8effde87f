package granary.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.ManualClock;
import granary.api.model.Problem;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Plan;
import granary.protocol.Role;
import granary.protocol.Sender;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The kept launches' bounds, in virtual time (no process is started: no cap ever arrives). */
class NodeTest {

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(1_000);
    private final List<String> events = new ArrayList<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    private Node node(int maxPending, Duration expiry) {
        AgentConfig c = AgentConfig.of(URI.create("http://127.0.0.1:1"), "n1", Resources.of(100, 64), "t", dir)
                .withPending(maxPending, expiry);
        return new Node(c, clock, new Workers(dir, "n1", timer, Duration.ofSeconds(1)), events::add, () -> { });
    }

    private static Envelope plan(long sequence, int... slots) {
        List<Plan.Launch> l = new ArrayList<>();
        for (int s : slots) {
            l.add(new Plan.Launch(UnitId.parse("j/u"), s, List.of("true"), Map.of(), ""));
        }
        return Envelope.of(new Sender(Role.JOB_MASTER, "jm1"), 1, sequence, new Plan(l));
    }

    @Test
    void keptLaunchesExpire() {
        Node n = node(10, Duration.ofMinutes(5));
        assertEquals(Ack.applied(1), n.plan("jm1", "k", plan(1, 0, 1)));
        assertEquals(2, n.pendingCount());
        clock.advance(Duration.ofMinutes(5).toMillis() - 1);
        n.expire();
        assertEquals(2, n.pendingCount());
        clock.advance(1);
        n.expire();
        assertEquals(0, n.pendingCount());
        assertTrue(events.contains("expired unit=j/u slot=0 reason=no cap within 300s"), events.toString());
    }

    @Test
    void tooManyKeptLaunchesRefuseThePlanWhole() {
        Node n = node(2, Duration.ofMinutes(5));
        assertEquals(Ack.applied(1), n.plan("jm1", "k", plan(1, 0)));
        Ack a = n.plan("jm1", "k", plan(2, 1, 2));
        assertTrue(a.isRefusal());
        Problem p = a.problems().get(0);
        assertEquals(2L, p.limit());
        assertEquals(3L, p.value());
        assertTrue(p.message().contains("limit of 2 kept launches"), p.message());
        assertEquals(1, n.pendingCount(), "nothing of a refused plan is kept");
        Ack dup = n.plan("jm1", "k", plan(3, 0));
        assertTrue(dup.problems().get(0).message().contains("slot 0 of unit j/u is already planned"), dup.toString());
    }

    @Test
    void theExitsOfAHeartbeatThatDidNotTakeEffectAreReportedAgainAfterARegistration() throws Exception {
        Node n = node(10, Duration.ofMinutes(5));
        n.apply(new granary.protocol.Cap(List.of(new granary.protocol.Cap.Grant("jm1", UnitId.parse("j/u"), 1, "k")), List.of(), true));
        assertEquals(Ack.applied(1), n.plan("jm1", "k", plan(1, 0)));
        granary.protocol.Heartbeat h = null;
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {   // bounded: the worker ("true") ends at once
            granary.protocol.Heartbeat d = n.drain(false);
            if (d != null && !d.exited().isEmpty()) {
                h = d;
                break;
            }
            Thread.sleep(20);
        }
        assertTrue(h != null, "the worker's exit was never reported: " + events);
        assertTrue(n.drain(true).exited().isEmpty(), "drained");
        n.unsent(h);            // refused, or dropped with a master that restarted
        n.registered();         // the agent registers again
        assertEquals(h.exited(), n.drain(true).exited(), "the exit goes again: its slot is released only then");
    }
}
