package granary.planner.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import granary.planner.live.model.Frame;

/**
 * The view model without a screen, against a fake master: what the connection says when it cannot
 * work (401, unreachable, a malformed address), a reconnect that resumes with Last-Event-ID, a job's
 * why, the quota slice and groups' min and max. Its "UI thread" is a single thread of the test's.
 */
class LiveViewModelTest {

    private static final LiveViewModel.Timing FAST = new LiveViewModel.Timing(20, 200, 50, 50, 200, 10_000);

    private final ExecutorService ui = Executors.newSingleThreadExecutor(r -> new Thread(r, "test-ui"));
    private FakeMaster master;
    private LiveViewModel vm;

    @BeforeEach
    void start() throws IOException {
        master = new FakeMaster();
        master.offeringTableAt("/api/v1/quota");
        master.on("/api/v1/quota", r -> FakeMaster.Answer.json(409, "{\"type\":\"/api/v1/problems/policy-not-installed\",\"status\":409,"
                + "\"detail\":\"the quota policy is not installed\"}"));
        vm = new LiveViewModel(ui, FAST);
    }

    @AfterEach
    void stop() throws InterruptedException {
        onUi(() -> {
            vm.close();
            return null;
        });
        master.close();
        ui.shutdownNow();
        ui.awaitTermination(5, TimeUnit.SECONDS);
    }

    private <T> T onUi(Callable<T> c) {
        try {
            return ui.submit(c).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private void connect(String url, String token) {
        onUi(() -> {
            vm.masterUrlProperty().set(url);
            vm.tokenProperty().set(token);
            vm.connect();
            return null;
        });
    }

    private void await(String what, BooleanSupplier done) throws InterruptedException {
        long until = System.currentTimeMillis() + 10_000;
        while (!onUi(done::getAsBoolean)) {
            if (System.currentTimeMillis() > until) {
                throw new AssertionError("waited 10 s for " + what + "; connection: " + onUi(() -> vm.stateProperty().get() + " "
                        + vm.connectionTextProperty().get()));
            }
            Thread.sleep(20);
        }
    }

    @Test
    void aTokenTheMasterRefusesFailsForGoodAndSaysSo() throws InterruptedException {
        master.on("/api/v1/stream", r -> FakeMaster.Answer.json(401, "{\"type\":\"/api/v1/problems/unauthenticated\",\"status\":401,"
                + "\"detail\":\"no token, or not one of this master's\"}"));
        connect(master.uri().toString(), "forged");
        await("FAILED", () -> vm.stateProperty().get() == ConnectionState.FAILED);
        String text = onUi(() -> vm.connectionTextProperty().get());
        assertTrue(text.startsWith("401 unauthenticated: no token, or not one of this master's"), text);
        assertTrue(text.contains("--issue-token=reader/NAME"), text);
        Thread.sleep(300); // longer than the backoff: no second try
        assertEquals(1, master.requests("/api/v1/stream").size(), "a refused token is not tried again");
        assertEquals("Bearer forged", master.requests("/api/v1/stream").get(0).authorization());
    }

    @Test
    void anUnreachableMasterIsRetriedWithBackoffAndSaysWhere() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        connect("http://127.0.0.1:" + port, "t");
        await("RECONNECTING with a retry", () -> vm.stateProperty().get() == ConnectionState.RECONNECTING
                && vm.connectionTextProperty().get().contains("retrying"));
        String text = onUi(() -> vm.connectionTextProperty().get());
        assertTrue(text.contains("the master at http://127.0.0.1:" + port + " is not reachable: nothing answers there"), text);
        assertTrue(text.indexOf("Exception") > text.indexOf("details: "), "a class name only on the details line: " + text);
    }

    @Test
    void aMalformedAddressFailsAtOnce() {
        connect("127.0.0.1:7070", "t");
        assertEquals(ConnectionState.FAILED, onUi(() -> vm.stateProperty().get()));
        assertTrue(onUi(() -> vm.connectionTextProperty().get()).contains("not a master's address: expected http://HOST:PORT"));
    }

    @Test
    void aDroppedStreamIsResumedWithLastEventId() throws InterruptedException {
        AtomicInteger calls = new AtomicInteger();
        byte[] more = ("id: s1.111\nevent: grant\ndata: {\"unit\":\"j9/u0\",\"node\":\"n2\",\"slots\":5,\"kind\":\"worker\",\"decision\":46}\n\n")
                .getBytes(StandardCharsets.UTF_8);
        master.on("/api/v1/stream", r -> calls.incrementAndGet() == 1
                ? FakeMaster.Answer.stream(FakeMaster.resource("/live/recorded.sse"), false) // then the connection drops
                : FakeMaster.Answer.stream(more, true));
        connect(master.uri().toString(), "t");
        await("the event after the drop", () -> vm.frameProperty().get() != null && vm.frameProperty().get().eventsApplied() == 11);
        assertEquals(null, master.requests("/api/v1/stream").get(0).lastEventId());
        assertEquals("s1.110", master.requests("/api/v1/stream").get(1).lastEventId(), "resumed after the last event read");
        Frame f = onUi(() -> vm.frameProperty().get());
        assertEquals(5, f.slots(f.topology().indexOf("n2")));
        await("CONNECTED", () -> vm.stateProperty().get() == ConnectionState.CONNECTED);
        await("j9 in the jobs list", () -> vm.jobs().stream().anyMatch(j -> j.job().equals("j9") && j.slots() == 5));
        assertEquals(3, onUi(() -> vm.queues().size()));
        assertEquals(new QueueRow("root.c", 3, 6, 0), onUi(() -> vm.queues().get(2)));
        assertTrue(onUi(() -> vm.statsProperty().get()).contains("2 skipped: line 33"), onUi(() -> vm.statsProperty().get()));
        // the quota state is read off the UI thread after each (re)connection: wait for it, do not race it
        await("the slice", () -> vm.sliceProperty().get().startsWith("no quota policy on this master (409 policy-not-installed)"));
    }

    @Test
    void aStreamSilentForTooLongIsReopened() throws InterruptedException {
        onUi(() -> {
            vm.close();
            vm = new LiveViewModel(ui, new LiveViewModel.Timing(20, 200, 50, 50, 200, 300));
            return null;
        });
        master.on("/api/v1/stream", r -> FakeMaster.Answer.stream("retry: 2000\n\n".getBytes(StandardCharsets.UTF_8), true));
        connect(master.uri().toString(), "t");
        await("a second subscription", () -> master.requests("/api/v1/stream").size() >= 2);
        await("the reason", () -> vm.connectionTextProperty().get().startsWith("the stream gave nothing for 300 ms"));
    }

    @Test
    void selectingAJobAsksWhyOffTheUiThread() throws InterruptedException {
        master.on("/api/v1/stream", r -> FakeMaster.Answer.stream(FakeMaster.resource("/live/recorded.sse"), true));
        master.on("/api/v1/jobs/j3/why", r -> FakeMaster.Answer.json(200, "{\"job\":\"j3\",\"queue\":\"root.a\",\"state\":\"waiting\","
                + "\"waitingSlots\":2,\"units\":[],\"sentences\":[\"j3/u1 waits for 2 slots: no node has 8 cpu free (best 4), 17 times.\"]}"));
        master.on("/api/v1/jobs/gone/why", r -> FakeMaster.Answer.json(404, "{\"type\":\"/api/v1/problems/not-found\",\"status\":404,"
                + "\"detail\":\"no job gone\"}"));
        connect(master.uri().toString(), "t");
        await("CONNECTED", () -> vm.stateProperty().get() == ConnectionState.CONNECTED);
        onUi(() -> {
            vm.selectJob("j3");
            return null;
        });
        await("why j3", () -> vm.whyProperty().get().contains("no node has 8 cpu free"));
        assertEquals("job j3 in root.a, waiting, 2 slots waiting\nj3/u1 waits for 2 slots: no node has 8 cpu free (best 4), 17 times.",
                onUi(() -> vm.whyProperty().get()));
        onUi(() -> {
            vm.selectJob("gone");
            return null;
        });
        await("why gone", () -> vm.whyProperty().get().startsWith("the master does not know job gone"));
    }

    @Test
    void theSliceInForceAndTheGroupsMinAndMaxComeFromTheQuotaState() throws InterruptedException {
        master.on("/api/v1/stream", r -> FakeMaster.Answer.stream(FakeMaster.resource("/live/recorded.sse"), true));
        master.on("/api/v1/quota/state", r -> FakeMaster.Answer.json(200, "{\"quota\":{\"sections\":{"
                + "\"slice\":{\"layout\":\"line\",\"rows\":[{\"slice\":\"default\",\"workers\":null,\"preemption\":true}]},"
                + "\"groups\":{\"layout\":\"table\",\"rows\":[{\"group\":\"root.a\",\"id\":1,\"min\":8,\"max\":20,\"used\":14,\"state\":\"OVER_MIN\"}]}}},"
                + "\"revision\":\"r1\"}"));
        master.offeringTableAt("/api/v1/quota");
        master.on("/api/v1/quota", r -> r.path().equals("/api/v1/quota")
                ? FakeMaster.Answer.json(200, "{\"default\": {\"root.a\": {\"GroupId\": 1, \"MaxQuota\": 20, \"MinQuota\": 8}}}")
                : FakeMaster.Answer.json(404, "{}"));
        connect(master.uri().toString(), "t");
        await("root.a with its limits", () -> vm.groups().stream().anyMatch(g -> g.path().equals("root.a") && g.limits() != null));
        GroupRow a = onUi(() -> vm.groups().stream().filter(g -> g.path().equals("root.a")).findFirst().orElseThrow());
        assertEquals(14, a.used());
        assertEquals(8, a.limits().minValue());
        assertEquals(20, a.limits().maxValue());
        assertEquals("slots", a.unit());
        assertEquals("slice default in force, no boundary: the slice covers the whole day", onUi(() -> vm.sliceProperty().get()));
    }
}
