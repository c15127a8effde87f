package granary.protocol.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.ManualClock;
import granary.protocol.Heartbeat;
import granary.protocol.Role;
import granary.protocol.Sender;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Peers that lose their master together must not come back in step (docs/protocol.md, "Transport": retries):
 * a link's pauses between attempts are spread over the upper half of the doubling pause, differently
 * for each peer, and the same for the same peer and incarnation (a simulated run is reproducible).
 */
class LinkSpreadTest {

    private static final URI MASTER = URI.create("http://127.0.0.1:1");
    private static final Link.Options OPTIONS = Link.Options.defaults().withBackoff(Duration.ofMillis(200), Duration.ofSeconds(5));

    /** Times (on the manual clock) of every post a link makes to a master that cannot be reached, over {@code millis}. */
    private static List<Long> attempts(String agent, long incarnation, long millis) {
        ManualLoop loop = new ManualLoop(new ManualClock(0));
        List<Long> at = new ArrayList<>();
        Transport unreachable = (call, l, done) -> {
            at.add(l.now());
            l.execute(() -> done.accept(null, new ConnectException("connection refused")));
        };
        Link link = new Link(List.of(MASTER), new Sender(Role.AGENT, agent), incarnation, "t", OPTIONS, unreachable, loop);
        loop.execute(() -> link.send(new Heartbeat(List.of(), List.of(), null), o -> { }));
        loop.advance(millis, 1);
        return at;
    }

    @Test
    void eachPauseIsInTheUpperHalfOfTheDoublingPause() {
        List<Long> at = attempts("n1", 7, 60_000);
        long pause = 200;
        for (int i = 1; i < at.size(); i++) {
            long gap = at.get(i) - at.get(i - 1);
            assertTrue(gap >= pause / 2 && gap <= pause, "pause " + i + " was " + gap + " ms, outside [" + pause / 2 + ", " + pause + "]");
            pause = Math.min(pause * 2, 5_000);
        }
        assertTrue(at.size() > 12, "attempts in a minute: " + at.size());
    }

    @Test
    void peersThatFailTogetherDoNotTryAgainTogether() {
        List<List<Long>> peers = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            peers.add(attempts("n" + i, 1_795_000_000_000L + i, 30_000));
        }
        // the 6th attempt of each (after about 3 s of pauses): without spreading they would all fall on one millisecond
        long distinct = peers.stream().map(a -> a.get(5)).distinct().count();
        assertTrue(distinct >= 40, "the 6th attempts of 50 peers fell on " + distinct + " distinct times");
    }

    @Test
    void theSamePeerAndIncarnationSpreadAlike() {
        assertEquals(attempts("n3", 42, 30_000), attempts("n3", 42, 30_000));
        assertNotEquals(attempts("n3", 42, 30_000), attempts("n3", 43, 30_000));
    }

    @Test
    void aFailedPollWaitsLongerTheLongerTheLinkFailsUpToTheBoundAndSpread() throws IOException {
        ManualLoop loop = new ManualLoop(new ManualClock(0));
        Transport unreachable = (call, l, done) -> l.execute(() -> done.accept(null, new ConnectException("refused")));
        Link link = new Link(List.of(MASTER), new Sender(Role.AGENT, "n9"), 1, "t", OPTIONS, unreachable, loop);
        assertTrue(link.pollPause() >= 250 && link.pollPause() <= 500, "while posts are answered: half a second, spread");
        loop.execute(() -> link.send(new Heartbeat(List.of(), List.of(), null), o -> { }));
        loop.advance(40_000, 1);
        for (int i = 0; i < 20; i++) {
            long p = link.pollPause();
            assertTrue(p >= 2_500 && p <= 5_000, "after 40 s of failures a poll waits the bound, spread: " + p);
        }
        assertEquals(1, link.spread(1));
        assertEquals(0, link.spread(0));
    }
}
