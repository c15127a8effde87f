package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import granary.api.event.GrantReleased;
import granary.api.event.JobCancelled;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.spi.EngineStatus;
import granary.api.spi.EngineView;
import granary.api.spi.UnitView;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;

/**
 * The policy contract in a real framework (Felix or Equinox, per run): for every policy bundle of the
 * runtime, with work waiting, stopping the bundle loses no grant and no waiting request, and starting
 * it again hosts the policy again with the same policies in effect, and the work goes on.
 * The runtime is {@link ApiRuntime}'s (typed API through the Scheduler service, demo off).
 */
class PolicyBundleRestartIT {

    private static final String PREFIX = "granary.policy.";

    private static ApiRuntime runtime;

    /** Every unit's granted / waiting / desired slots, and the engine's counts. */
    record Snapshot(Map<String, String> units, int jobs, int waitingUnits, long waitingSlots, long grantedSlots,
                    long decisions) {
    }

    @BeforeAll
    static void start() throws Exception {
        runtime = ApiRuntime.start(Map.of());
        // two nodes of 4 slots: 8 in all
        runtime.submit(new NodeAdded(new NodeSpec("n1", "r1", Resources.of(400, 4096))));
        runtime.submit(new NodeAdded(new NodeSpec("n2", "r1", Resources.of(400, 4096))));
    }

    @AfterAll
    static void stop() {
        if (runtime != null) {
            runtime.close();
        }
    }

    private static <T> T query(Function<EngineView, T> q) {
        return runtime.query(q);
    }

    private static Snapshot snapshot() {
        return query(v -> {
            Map<String, String> units = new TreeMap<>();
            v.jobs().forEach(j -> j.units().forEach(u -> units.put(u.id().toString(),
                    u.granted() + "+" + u.remaining() + "/" + u.desired())));
            EngineStatus s = v.status();
            return new Snapshot(units, s.jobs(), s.waitingUnits(), s.waitingSlots(), s.grantedSlots(), s.decisions());
        });
    }

    private static boolean hosted(String policy) {
        return query(v -> v.policies().stream().anyMatch(p -> p.name().equals(policy)));
    }

    private static Map<String, String> inEffect() {
        return query(v -> new TreeMap<>(v.status().policies()));
    }

    private static int granted(String unit) {
        return query(v -> {
            UnitView u = v.unit(UnitId.parse(unit));
            return u == null ? 0 : u.granted();
        });
    }

    private static JobSpec job(String id, int desired) {
        return JobSpec.of(id, "root.it", UnitSpec.builder("u").slot(100, 1024).desired(desired).build());
    }

    @Test
    void everyPolicyBundleStopsAndStartsWithoutLosingWork() throws Exception {
        List<Bundle> policies = runtime.bundles().stream()
                .filter(b -> b.getSymbolicName() != null && b.getSymbolicName().startsWith(PREFIX))
                .sorted(java.util.Comparator.comparing(Bundle::getSymbolicName)).toList();
        assertFalse(policies.isEmpty(), "the runtime has policy bundles");
        for (Bundle bundle : policies) {
            String policy = bundle.getSymbolicName().substring(PREFIX.length());
            assertTrue(hosted(policy), policy + " hosted at the start");
            restart(bundle, policy);
        }
    }

    private static void restart(Bundle bundle, String policy) throws Exception {
        String a = policy + "-a";
        String b = policy + "-b";
        // a takes 6 of the 8 slots, b gets 2 and waits for 4
        runtime.submit(new JobSubmitted(job(a, 6)));
        runtime.submit(new JobSubmitted(job(b, 6)));
        Snapshot before = snapshot();
        assertEquals("6+0/6", before.units().get(a + "/u"), policy + ": " + before);
        assertEquals("2+4/6", before.units().get(b + "/u"), policy + ": " + before);
        Map<String, String> effect = inEffect();

        bundle.stop();
        It.await(policy + " no longer hosted", () -> !hosted(policy), PolicyBundleRestartIT::snapshot, It.TIMEOUT);
        assertEquals(before, snapshot(), policy + " stopped: every grant and every waiting slot is still there");

        bundle.start();
        It.await(policy + " hosted again", () -> hosted(policy), PolicyBundleRestartIT::snapshot, It.TIMEOUT);
        It.await(policy + ": the same policies in effect as before it stopped", () -> effect.equals(inEffect()),
                PolicyBundleRestartIT::inEffect, It.TIMEOUT);
        assertEquals(before, snapshot(), policy + " started: nothing changed while nothing was freed");

        // the work goes on: a gives back 2 slots, b gets them
        String node = query(v -> v.unit(UnitId.parse(a + "/u")).allocations().keySet().iterator().next());
        runtime.submit(new GrantReleased(UnitId.parse(a + "/u"), node, 2));
        It.await(policy + ": b gets the freed slots", () -> granted(b + "/u") == 4, PolicyBundleRestartIT::snapshot,
                It.TIMEOUT);

        runtime.submit(new JobCancelled(a));
        runtime.submit(new JobCancelled(b));
        It.await(policy + ": jobs gone", () -> snapshot().jobs() == 0, PolicyBundleRestartIT::snapshot, It.TIMEOUT);
    }
}
