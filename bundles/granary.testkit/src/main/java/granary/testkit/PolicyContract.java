package granary.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import granary.api.event.OutputEvent;
import granary.api.event.Receipt;
import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.UnitSpec;
import granary.api.spi.ExtensionPoint;
import granary.api.spi.Policy;
import granary.api.spi.MetricSpec;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.ReasonCode;
import granary.api.spi.ReportSpec;
import granary.api.spi.ResourceSpec;
import granary.api.report.Report;
import granary.api.spi.PolicyInfo;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract every policy runs. A policy's tests extend this class in one short file, naming its
 * {@link #declaration()} and, if it needs them, its {@link #options options} (files go to the given
 * temporary folder), the groups its work names and a workload of its own:
 *
 * <pre>
 * class SjfContractTest extends PolicyContract {
 *     &#64;Override protected PolicyDeclaration declaration() { return SjfProvider.DECLARATION; }
 * }
 * </pre>
 *
 * <p>Every check runs a {@link TestEngine} (strict mode) with the policy made from its declaration
 * and options, as the runtime makes it, selected, and the kit's {@link ArrivalOrder} as the only
 * fallback; the workload comes from a fixed seed and is larger than the cluster, so work waits.
 * The checks:
 * <ul>
 *   <li>the policy installs and, activated, is in effect at each of its exclusive extension points;</li>
 *   <li>with waiting work, swapping away to the fallback and back loses no grant and no waiting
 *       request (the same units, each with at least the slots it held where it held them, none
 *       revoked, granted + waiting = desired), and afterwards every job still runs to its end;</li>
 *   <li>uninstalling it (what stopping its bundle does) falls back without losing anything, and a new
 *       instance installed (the bundle started again) is in effect again;</li>
 *   <li>the same input gives the same grants and revocations, in the same order.</li>
 * </ul>
 */
public abstract class PolicyContract {

    /** The policy under test: its provider's {@code DECLARATION}. */
    protected abstract PolicyDeclaration declaration();

    /**
     * The policy's options, as a configuration gives them (text values by option name). Files the
     * options name are written to {@code dir} (see {@link TestFiles#write}). Default: none.
     */
    protected Map<String, String> options(Path dir) {
        return Map.of();
    }

    /** The groups (queues) the workload's jobs name; default: the default group. */
    protected List<String> groups() {
        return List.of(JobSpec.DEFAULT_GROUP);
    }

    /** The cluster: 3 nodes of 4 one-core slots in two rooms. */
    protected List<NodeSpec> cluster() {
        List<NodeSpec> out = new ArrayList<>(Clusters.nodes("a", "r1", 2, 400, 400));
        out.add(Clusters.node("b0", "r2", 400, 400));
        return out;
    }

    /** The seed of {@link #workload}. */
    protected long seed() {
        return 20261102L;
    }

    /**
     * The jobs, submitted in this order one second apart: by default 16 jobs of one unit of 1 to 4
     * one-core slots at priority 0 to 2, in the {@link #groups()} round-robin; for a policy that places
     * gangs, every fourth job is a gang of two all-or-nothing units of 1 to 2 slots instead. More than
     * the cluster holds, so work waits.
     */
    protected List<JobSpec> workload(Random random) {
        List<JobSpec> jobs = new ArrayList<>();
        List<String> groups = groups();
        boolean gangs = declaration().points().contains(ExtensionPoint.GANG_PLACEMENT);
        for (int i = 0; i < 16; i++) {
            String group = groups.get(i % groups.size());
            int priority = random.nextInt(3);
            if (gangs && i % 4 == 3) {
                jobs.add(Jobs.job("j" + i).group(group).gang()
                        .units(Jobs.unit("a", 100, 100, 1 + random.nextInt(2)).priority(priority).allOrNothing(true).build(),
                                Jobs.unit("b", 100, 100, 1 + random.nextInt(2)).priority(priority).allOrNothing(true).build())
                        .build());
            } else {
                jobs.add(Jobs.job("j" + i).group(group)
                        .unit(Jobs.unit("u", 100, 100, 1 + random.nextInt(4)).priority(priority).build()).build());
            }
        }
        return jobs;
    }

    @TempDir
    Path dir;

    /** A new instance of the policy under test, from its declaration and {@link #options}. */
    protected final Policy newPolicy() {
        return declaration().create(options(dir));
    }

    private String name() {
        return declaration().name();
    }

    private List<String> exclusivePoints() {
        return declaration().points().stream().filter(ExtensionPoint::exclusive).map(ExtensionPoint::id).toList();
    }

    /** An engine with the fallback installed, the policy selected and installed, the cluster added. */
    private TestEngine engine(Policy policy) {
        TestEngine e = new TestEngine(Clocks.midnight(), List.of(name()), List.of(ArrivalOrder.NAME), new ArrivalOrder());
        Receipt installed = e.install(policy);
        assertNotNull(installed);
        e.activate(name());
        e.nodes(cluster());
        return e;
    }

    /** Submits the seeded workload a second apart, a tick after each; checks that some work runs and some waits. */
    private void load(TestEngine e) {
        for (JobSpec j : workload(new Random(seed()))) {
            e.clock.advance(Clocks.SECOND);
            e.submit(j);
            e.tick();
        }
        assertTrue(e.waitingSlots() > 0, () -> "the workload must leave work waiting: " + e.work());
        assertTrue(e.grantedSlots() > 0, () -> "the workload must get some grants: " + e.work());
    }

    private Optional<PolicyInfo> info(TestEngine e) {
        return e.view().policies().stream().filter(p -> p.name().equals(name())).findFirst();
    }

    /** Selected, active, and in effect at each of its exclusive points. */
    private void assertInEffect(TestEngine e, String policy) {
        for (String point : exclusivePoints()) {
            assertEquals(policy, e.inEffect(point), point + " in " + e.status().policies());
        }
        assertTrue(info(e).map(p -> p.selected() && p.active()).orElse(false), () -> "active: " + e.view().policies());
    }

    /** Not active, and in effect at none of its exclusive points; the fallback orders the units. */
    private void assertNotInEffect(TestEngine e) {
        for (String point : exclusivePoints()) {
            assertNotEquals(name(), e.inEffect(point), point + " in " + e.status().policies());
        }
        assertEquals(ArrivalOrder.NAME, e.inEffect(ExtensionPoint.UNIT_ORDER.id()), "the fallback stands in");
        assertTrue(info(e).map(p -> !p.active()).orElse(true), () -> "still active: " + e.view().policies());
    }

    /** Same units; each keeps the slots it held, where it held them; granted + waiting = desired; nothing revoked. */
    private static void assertNothingLost(Map<String, TestEngine.Work> before, TestEngine e, int revocationsBefore,
                                          String when) {
        Map<String, TestEngine.Work> after = e.work();
        assertEquals(before.keySet(), after.keySet(), when + ": the same units");
        before.forEach((unit, b) -> {
            TestEngine.Work a = after.get(unit);
            assertEquals(b.desired(), a.desired(), when + ": " + unit + " desired");
            assertEquals(a.desired(), a.granted() + a.remaining(), when + ": " + unit + " granted + waiting = desired");
            b.placement().forEach((node, slots) -> assertTrue(a.placement().getOrDefault(node, 0) >= slots,
                    () -> when + ": " + unit + " held " + slots + " on " + node + ", now " + a.placement()));
        });
        assertEquals(revocationsBefore, e.revocations().size(), when + ": nothing revoked; " + e.revocations());
        e.checkInvariants();
    }

    /**
     * Lets the work run to its end: every unit holding slots finishes, the clock moves a second, and
     * again, at most 200 rounds. Returns the units left (none when everything could run).
     */
    private static List<String> drain(TestEngine e) {
        for (int round = 0; round < 200 && !e.view().jobs().isEmpty(); round++) {
            List<String> holding = new ArrayList<>();
            e.view().jobs().forEach(j -> j.units().forEach(u -> {
                if (u.granted() > 0) {
                    holding.add(u.id().toString());
                }
            }));
            holding.forEach(e::finish);
            e.advance(Clocks.SECOND);
        }
        List<String> left = new ArrayList<>();
        e.view().jobs().forEach(j -> j.units().forEach(u -> left.add(u.id() + " " + u.granted() + "/" + u.desired())));
        return left;
    }

    /** The whole scenario, returning its output events: load, swap away, swap back, drain. */
    private List<OutputEvent> swapScenario() {
        TestEngine e = engine(newPolicy());
        assertInEffect(e, name());
        load(e);
        Map<String, TestEngine.Work> before = e.work();
        int revoked = e.revocations().size();

        e.deactivate(name());
        assertNotInEffect(e);
        assertNothingLost(before, e, revoked, "swapped away");

        Map<String, TestEngine.Work> away = e.work();
        e.activate(name());
        assertInEffect(e, name());
        assertNothingLost(away, e, revoked, "swapped back");

        List<String> left = drain(e);
        assertEquals(List.of(), left, "every job runs to its end after the swaps");
        return e.log();
    }

    @Test
    void installsAndActivates() {
        TestEngine e = engine(newPolicy());
        assertTrue(e.view().policies().stream().anyMatch(p -> p.name().equals(name())),
                () -> "installed: " + e.view().policies());
        assertNotNull(e.view().policy(name()));
        assertInEffect(e, name());
        assertEquals(declaration().points(), ExtensionPoint.of(e.view().policy(name())),
                "the declaration names the points the instance implements");
    }

    @Test
    void swappingAwayAndBackWithWaitingWorkLosesNothing() {
        swapScenario();
    }

    @Test
    void uninstallingFallsBackWithoutLosingAnythingAndANewInstanceTakesOver() {
        Policy policy = newPolicy();
        TestEngine e = engine(policy);
        load(e);
        Map<String, TestEngine.Work> before = e.work();
        int revoked = e.revocations().size();

        e.uninstall(policy);
        assertTrue(e.view().policies().stream().noneMatch(p -> p.name().equals(name())),
                () -> "uninstalled: " + e.view().policies());
        assertNotInEffect(e);
        assertNothingLost(before, e, revoked, "uninstalled");

        Map<String, TestEngine.Work> gone = e.work();
        e.install(newPolicy());   // the bundle started again: a new instance, still selected
        assertInEffect(e, name());
        assertNothingLost(gone, e, revoked, "installed again");
        assertEquals(List.of(), drain(e), "every job runs to its end after the policy came back");
    }

    @Test
    void theSameInputGivesTheSameGrantsInTheSameOrder() {
        List<OutputEvent> first = swapScenario();
        List<OutputEvent> second = swapScenario();
        assertTrue(first.size() > 0, "the scenario grants something");
        if (!first.equals(second)) {
            for (int i = 0; i < Math.min(first.size(), second.size()); i++) {
                if (!first.get(i).equals(second.get(i))) {
                    fail("run 2 differs at output " + i + ": " + first.get(i) + " vs " + second.get(i));
                }
            }
            fail("run 2 has " + second.size() + " outputs, run 1 " + first.size());
        }
    }

    /**
     * What the policy declares for the edges holds on its installed instance with waiting work: every
     * reason a waiting unit carries has an engine code or one the declaration lists; every resource it
     * reads (documents, fields) and every report its metrics and resources read answers without failing;
     * every metric's table is in its report (docs/policies.md, "Writing a policy").
     */
    @Test
    void whatItDeclaresForTheEdgesHoldsWithWaitingWork() {
        TestEngine e = engine(newPolicy());
        load(e);
        PolicyDeclaration d = declaration();
        Policy installed = e.view().policy(name());
        List<String> undeclared = new ArrayList<>();
        e.view().jobs().forEach(j -> j.units().forEach(u -> u.reasons().forEach(t -> {
            if (!ReasonCode.engineCodes().contains(t.code()) && !d.reasons().contains(t.code())) {
                undeclared.add(u.id() + ": " + t.last());
            }
        })));
        assertEquals(List.of(), undeclared, "reasons with a code neither the engine's nor declared by " + name());
        for (ResourceSpec r : d.resources()) {
            if (r.kind() == ResourceSpec.Kind.READ || r.kind() == ResourceSpec.Kind.FIELDS) {
                r.read(installed, e.view());
            }
        }
        for (MetricSpec m : d.metrics()) {
            ReportSpec report = d.reports().stream().filter(x -> x.name().equals(m.report())).findFirst().orElseThrow();
            Report read = report.read(installed, e.view());
            assertNotNull(read.section(m.section()), () -> "metric " + m.name() + ": report " + m.report() + " has no section "
                    + m.section());
        }
    }

    /** For subclasses' workloads: one unit "u" of one-core slots. */
    protected static UnitSpec slots(int n) {
        return Jobs.slots(n);
    }
}
