package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;

import granary.api.model.JobSpec;
import granary.api.model.Locality;
import granary.api.model.NodeSpec;
import granary.api.event.Receipt;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.event.GrantReleased;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.report.Cell;
import granary.api.report.Report;
import granary.api.report.Section;
import granary.api.spi.EngineView;
import granary.api.spi.UnitView;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Bundle;

/**
 * The gang and reservation policies in a real framework (Felix or Equinox, per run), with the
 * default selection and reservation added (sjf, queues, quota, gang, reservation, through Config
 * Admin as an operator adds it): both in effect; each bundle stopped
 * and started while work runs; nothing lost (granted + waiting = desired for every unit, before and
 * after); stopping reservation releases its locks at once; stopping gang never leaves a gang half
 * placed. The reservation runs with threshold 0 (configured through Config Admin) so that it acts
 * on the live engine's one-second ticks without the test waiting a minute. Set up like
 * {@link QuotaSwapIT}.
 */
class GangReservationIT {

    /** The runtime's default selection with reservation (docs/multi-tenancy.md, "The multi-tenant default"). */
    private static final String[] SELECTION = {"sjf", "queues", "quota", "gang", "reservation"};

    private static ApiRuntime runtime;

    @BeforeAll
    static void start() throws Exception {
        runtime = ApiRuntime.start(Map.of("granary.policy.reservation", Map.of("thresholdMillis", 0L, "timeoutMillis", 0L),
                "granary.engine", Map.of("policies", SELECTION)));
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

    /** granted/waiting/desired per unit; fails if granted + waiting != desired anywhere. */
    private static Map<String, String> work() {
        return query(v -> {
            Map<String, String> m = new TreeMap<>();
            for (var job : v.jobs()) {
                for (UnitView u : job.units()) {
                    assertEquals(u.desired(), u.granted() + u.remaining(), u.id() + ": granted + waiting = desired");
                    m.put(u.id().toString(), u.granted() + "/" + u.remaining() + "/" + u.desired());
                }
            }
            return m;
        });
    }

    /** The target and locked nodes of the reservation in force, as its policy's report gives them. */
    private record ReservationReport(String target, List<String> lockedNodes) {
    }

    /**
     * The reservation policy's {@code reservations} report, read the way the console reads it (through
     * the policy's declaration), or null while the reservation bundle is stopped.
     */
    private static ReservationReport reservation() {
        Report r = runtime.report("reservation", "reservations");
        Section s = r == null ? null : r.section("reservation");
        if (s == null) {
            return r == null ? null : new ReservationReport(null, List.of());
        }
        Cell nodes = s.rows().get(0).cell("locked_nodes");
        String text = (String) nodes.value();
        return new ReservationReport((String) s.rows().get(0).cell("target").value(),
                text.isEmpty() ? List.of() : List.of(text.split(",")));
    }

    private static Map<String, String> policies() {
        return query(v -> v.status().policies());
    }

    private static int granted(String unit) {
        return query(v -> v.unit(UnitId.parse(unit)) == null ? -1 : v.unit(UnitId.parse(unit)).granted());
    }

    private static Bundle bundle(String bsn) {
        return runtime.bundle(bsn);
    }

    private static void releaseAll(String unit) throws Exception {
        UnitId id = UnitId.parse(unit);
        for (Map.Entry<String, Integer> a : query(v -> Map.copyOf(v.unit(id).allocations())).entrySet()) {
            submit(new GrantReleased(id, a.getKey(), a.getValue()));
        }
    }

    @Test
    void bothActiveEachStoppedAndStartedWhileWorkRunsNothingLost() throws Exception {
        Map<String, String> p = policies();
        assertEquals("gang", p.get("gang-placement"));
        assertTrue(p.get("node-filter").contains("reservation"), p::toString);   // beside quota's emergent claim
        assertTrue(p.get("cycle-action").contains("reservation"), p::toString);
        assertTrue(p.get("submit-filter").contains("gang"), p::toString);

        submit(new NodeAdded(new NodeSpec("n1", "r1", Resources.of(400, 4096))));
        submit(new NodeAdded(new NodeSpec("n2", "r1", Resources.of(400, 4096))));
        submit(new JobSubmitted(JobSpec.of("fill", null,
                UnitSpec.builder("u").slot(100, 100).desired(1).prefer(Locality.machine("n1", 1)).build())));
        // a gang of both whole nodes: 800 cpu at once, 700 free, so it waits, is elected, and both nodes get locked
        submit(new JobSubmitted(new JobSpec("big", null, null, 0, true,
                List.of(UnitSpec.builder("w").slot(100, 100).desired(8).build()))));
        assertEquals(0, granted("big/w"));
        It.await("both nodes locked for big", () -> reservation().lockedNodes().size() == 2,
                GangReservationIT::reservation, It.TIMEOUT);
        assertEquals("big", reservation().target());

        submit(new JobSubmitted(JobSpec.of("small", null, UnitSpec.builder("u").slot(100, 100).desired(1).build())));
        assertEquals(0, granted("small/u"), "every node is locked for big");
        Map<String, String> before = work();

        assertTrue(runtime.consoleHas("reservations"), "the console offers the reservation policy's report");
        bundle("granary.policy.reservation").stop();
        It.await("its bundle stopped, the report left the console", () -> !runtime.consoleHas("reservations"), () -> "",
                It.TIMEOUT);
        assertEquals(1, granted("small/u"), "stopping reservation released its locks at once");
        assertTrue(!policies().get("node-filter").contains("reservation"), () -> policies().toString());
        assertEquals(0, granted("big/w"), "a gang is never half placed");
        Map<String, String> after = work();
        assertEquals(before.keySet(), after.keySet(), "no unit lost");
        assertEquals("1/0/1", after.get("small/u"));
        assertEquals(before.get("big/w"), after.get("big/w"));
        assertEquals(before.get("fill/u"), after.get("fill/u"));

        bundle("granary.policy.reservation").start();
        It.await("the report back in the console", () -> runtime.consoleHas("reservations"), () -> "", It.TIMEOUT);
        It.await("reservation back, big elected again", () -> {
            ReservationReport r = reservation();
            return r != null && "big".equals(r.target()) && r.lockedNodes().size() == 2;
        }, GangReservationIT::reservation, It.TIMEOUT);
        assertEquals(after, work(), "starting it changed no grant");

        bundle("granary.policy.gang").stop();
        assertEquals("waiting", policies().get("gang-placement"));
        releaseAll("fill/u");
        releaseAll("small/u");
        assertEquals(0, granted("big/w"), "without a gang placement the gang waits whole, though it would fit now");
        assertEquals("0/8/8", work().get("big/w"));

        bundle("granary.policy.gang").start();
        It.await("gang back, big placed whole", () -> granted("big/w") == 8, GangReservationIT::work, It.TIMEOUT);
        assertEquals("8/0/8", work().get("big/w"));
        assertNull(reservation().target(), "placed: its reservation ended");
    }
}
