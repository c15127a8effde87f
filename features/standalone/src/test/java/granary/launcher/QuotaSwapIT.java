package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.event.Receipt;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.PolicyActivated;
import granary.api.spi.EngineView;
import granary.api.spi.UnitView;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;

/**
 * The quota policy and SubmitWindow active together in a real framework (Felix or Equinox, per
 * run); swapping SubmitWindow and FIFO, and stopping the SubmitWindow bundle, while quota stays in
 * effect, changes no grant and loses no waiting slot. Set up like {@link PolicySwapIT}: the test
 * shares the granary.api classes with the bundles through the system bundle.
 */
class QuotaSwapIT {

    private static ApiRuntime runtime;

    @BeforeAll
    static void start() throws Exception {
        runtime = ApiRuntime.start(Map.of());
    }

    @AfterAll
    static void stop() {
        if (runtime != null) {
            runtime.close();
        }
    }

    private static Receipt submit(InputEvent e) throws Exception {
        return runtime.submit(e);
    }

    private static <T> T query(Function<EngineView, T> q) {
        return runtime.query(q);
    }

    /** granted/desired per unit, and the policies in effect. */
    private static String work() {
        return query(v -> {
            Map<String, String> m = new TreeMap<>();
            for (var job : v.jobs()) {
                for (UnitView u : job.units()) {
                    m.put(u.id().toString(), u.granted() + "/" + u.desired() + " waiting " + u.remaining());
                }
            }
            return m + " waiting_slots=" + v.status().waitingSlots();
        });
    }

    private static Map<String, String> policies() {
        return query(v -> v.status().policies());
    }

    private static Bundle bundle(String bsn) {
        return runtime.bundle(bsn);
    }

    private static JobSpec gang(String id, String group, int slots) {
        return new JobSpec(id, group, null, 0, false, List.of(UnitSpec.builder("u").slot(100, 100).desired(slots).build()));
    }

    @Test
    void quotaAndSubmitWindowTogetherAndSwapsLoseNothing() throws Exception {
        // the table goes in as an operator loads it: the quota policy's own quota-load command (the
        // table must be of the policy bundle's classes, which the test does not share)
        Path table = Files.createTempFile("granary-quota-swap-", ".json");
        Files.writeString(table, "{\"default\": {\"a\": {\"GroupId\": 1, \"MinQuota\": 2, \"MaxQuota\": 6}, "
                + "\"b\": {\"GroupId\": 2, \"MinQuota\": 2, \"MaxQuota\": 6}}}");
        try {
            runtime.command("quota", "quota-load", table.toString());
        } finally {
            Files.delete(table);
        }
        submit(new PolicyActivated("submitwindow"));
        Map<String, String> p = policies();
        assertEquals("submitwindow", p.get("unit-order"));
        assertEquals("quota", p.get("group-order"));
        assertTrue(p.get("admission").contains("quota"), p::toString);

        submit(new NodeAdded(new NodeSpec("n1", "r1", Resources.of(400, 400))));
        submit(new NodeAdded(new NodeSpec("n2", "r1", Resources.of(400, 400))));
        submit(new JobSubmitted(gang("a1", "a", 8)));   // capped at a's MaxQuota 6
        submit(new JobSubmitted(gang("b1", "b", 4)));   // 2 slots left in the cluster
        String start = work();
        assertEquals(6, (int) query(v -> v.unit(new granary.api.model.UnitId("a1", "u")).granted()));
        assertEquals(2, (int) query(v -> v.unit(new granary.api.model.UnitId("b1", "u")).granted()));

        for (String next : List.of("fifo", "submitwindow", "fifo", "submitwindow")) {
            Receipt r = submit(new PolicyActivated(next));
            assertEquals(List.of(), r.outputs(), "a swap granted or revoked something");
            assertEquals(start, work(), "after swapping to " + next);
            assertEquals(next, policies().get("unit-order"));
            assertTrue(policies().get("admission").contains("quota"), "quota stays in effect");
        }

        bundle("granary.policy.submitwindow").stop();
        assertEquals("fifo", policies().get("unit-order"));
        assertEquals("quota", policies().get("group-order"));
        assertEquals(start, work());
        bundle("granary.policy.submitwindow").start();
        It.await("submitwindow back in effect", () -> "submitwindow".equals(policies().get("unit-order")),
                QuotaSwapIT::work, It.TIMEOUT);
        assertEquals(start, work());
    }
}
