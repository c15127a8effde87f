package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import granary.api.event.GrantReleased;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The shadow canary's console commands in a real framework (Felix or Equinox, per run): start a
 * candidate in shadow, report, promote, roll back by hand, and the errors (docs/canary.md).
 */
class CanaryIT {

    private static ApiRuntime runtime;
    private static GogoSession gogo;

    @BeforeAll
    static void start() throws Exception {
        runtime = ApiRuntime.start(Map.of());
        It.await("the canary commands", () -> runtime.consoleHas("canary-start") && runtime.consoleHas("canaryReport"),
                () -> "not registered", It.TIMEOUT);
        gogo = runtime.gogo(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    @AfterAll
    static void stop() {
        if (gogo != null) {
            gogo.close();
        }
        if (runtime != null) {
            runtime.close();
        }
    }

    private static String unitOrder() {
        return runtime.query(v -> v.status().policies().get("unit-order"));
    }

    @Test
    void aCandidateRunsInShadowIsReportedPromotedAndRolledBack() throws Exception {
        Exception none = assertThrows(Exception.class, () -> gogo.run("granary:canary-report"));
        assertTrue(GogoSession.message(none).contains("no canary running"), GogoSession.message(none));

        runtime.submit(new NodeAdded(new NodeSpec("c1", "r1", Resources.of(400, 400))));
        runtime.submit(new JobSubmitted(JobSpec.of("ca", "default", UnitSpec.builder("u").slot(100, 100).desired(8).build())));
        runtime.submit(new JobSubmitted(JobSpec.of("cb", "default", UnitSpec.builder("u").slot(100, 100).desired(8).build())));

        Exception unknown = assertThrows(Exception.class, () -> gogo.run("granary:canary-start nosuch 60"));
        assertTrue(GogoSession.message(unknown).contains("'nosuch' is not installed; policies: "), GogoSession.message(unknown));

        String started = gogo.run("granary:canary-start fair 600");
        assertTrue(started.contains("canary started: candidate fair"), started);
        runtime.submit(new GrantReleased(new UnitId("ca", "u"), "c1", 1));   // sjf (the default; same size): ca again; fair: cb
        assertEquals(0, (int) runtime.query(v -> v.unit(new UnitId("cb", "u")).granted()), "the shadow never grants on live");

        String report = gogo.run("granary:canaryReport");
        assertTrue(report.startsWith("canary shadow"), report);
        assertTrue(report.matches("(?s).*grants\\s+default\\s+1\\s+1\\s+0.*"), report);
        assertTrue(report.contains("waitP90"), report);

        Exception margin = assertThrows(Exception.class, () -> gogo.run("granary:canary-promote timeouts -5 60"));
        assertTrue(GogoSession.message(margin).contains("between 0 and 1000 percent, got -5.0"), GogoSession.message(margin));

        assertEquals("sjf", unitOrder(), "the runtime's default unit order");
        String promoted = gogo.run("granary:canary-promote waitP90 1000 3600");
        assertTrue(promoted.contains("promoted: policies") && promoted.contains("-> fair"), promoted);
        // the new order is built off the engine thread; status names it once it orders the queues
        It.await("fair in force", () -> "fair".equals(unitOrder()), CanaryIT::unitOrder, It.TIMEOUT);
        runtime.submit(new GrantReleased(new UnitId("ca", "u"), "c1", 1));
        assertEquals(1, (int) runtime.query(v -> v.unit(new UnitId("cb", "u")).granted()), "fair is live now");

        String back = gogo.run("granary:canary-rollback");
        assertTrue(back.contains("rolled back by hand"), back);
        It.await("sjf in force again", () -> "sjf".equals(unitOrder()), CanaryIT::unitOrder, It.TIMEOUT);
        assertTrue(gogo.run("granary:canary-report").contains("canary rolled_back"));
        assertTrue(gogo.run("granary:canaryStop").contains("canary stopped"));
        String two = gogo.run("granary:canary-start fifo,fair 60");
        assertTrue(two.contains("candidate fifo,fair"), two);
        assertTrue(gogo.run("granary:canary-stop").contains("was shadow"));
    }
}
