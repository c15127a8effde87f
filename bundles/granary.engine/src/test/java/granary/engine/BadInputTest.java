package granary.engine;

import static granary.engine.Harness.unit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.Locality;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.api.event.GrantReleased;
import granary.api.event.InputEvent;
import granary.api.event.JobCancelled;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.NodeBlacklisted;
import granary.api.event.NodeCapacityChanged;
import granary.api.event.NodeRemoved;
import granary.api.event.PolicyActivated;
import granary.api.event.UnitCancelled;
import granary.api.event.UnitDesireChanged;
import granary.api.event.UnitRequested;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** Bad input gets an error naming the field, and the accepted state is not touched. */
class BadInputTest {

    private static Harness busy() {
        Harness h = Harness.withFifo().nodes("n", "r1", 3, 400, 4096);
        h.handle(new JobSubmitted(JobSpec.of("svc", null,
                UnitSpec.builder("web").slot(100, 512).desired(1).prefer(Locality.machine("n2", 1))
                        .kind(UnitKind.ONLINE).build())));
        h.submit("j", unit("u", 100, 512, 14));
        assertEquals(Map.of("n0", 4, "n1", 4, "n2", 3), h.placement("j/u"));
        return h;
    }

    static List<Arguments> refusals() {
        return List.of(
                Arguments.of("duplicate node", new NodeAdded(new NodeSpec("n1", "r1", Resources.of(1, 1))),
                        "node n1: name: a node named 'n1' is already in the cluster"),
                Arguments.of("remove unknown node", new NodeRemoved("n9", false), "node n9: node: no node named 'n9'"),
                Arguments.of("remove node with online work", new NodeRemoved("n2", false),
                        "node n2: force: holds online grants [svc/webx1]"),
                Arguments.of("negative capacity", new NodeCapacityChanged("n0", Resources.of(-5, 10)),
                        "node n0: capacity.cpu: must not be negative, got cpu=-5,mem=10"),
                Arguments.of("capacity below online work", new NodeCapacityChanged("n2", Resources.of(50, 4096)),
                        "online grants hold cpu=100,mem=512, more than the new capacity"),
                Arguments.of("blacklist unknown node", new NodeBlacklisted("zz", true), "node zz: node: no node named 'zz'"),
                Arguments.of("duplicate job", new JobSubmitted(JobSpec.of("j", null, unit("x", 1, 1, 1))),
                        "job j: id: a job with id 'j' is already running"),
                Arguments.of("unit larger than any node", new JobSubmitted(JobSpec.of("k", null, unit("x", 500, 1, 1))),
                        "job k: units[0].slot: slot cpu=500,mem=1 is larger than every node (largest per resource: cpu=400,mem=4096, 3 nodes)"),
                Arguments.of("unknown machine target", new JobSubmitted(JobSpec.of("k", null, UnitSpec.builder("x")
                        .slot(1, 1).desired(1).prefer(Locality.machine("m7", 1)).build())),
                        "job k: units[0].locality[0].target: no node named 'm7' in the cluster"),
                Arguments.of("unknown room target", new JobSubmitted(JobSpec.of("k", null, UnitSpec.builder("x")
                        .slot(1, 1).desired(1).prefer(Locality.room("r9", 1)).build())),
                        "job k: units[0].locality[0].target: no room named 'r9'; rooms: [r1]"),
                Arguments.of("nothing to schedule", new JobSubmitted(JobSpec.of("k", null, unit("x", 1, 1, 0))),
                        "job k: units: every unit has desired 0"),
                Arguments.of("unit for unknown job", new UnitRequested("nope", unit("x", 1, 1, 1)),
                        "job nope: job: no running job with id 'nope'"),
                Arguments.of("unit name taken", new UnitRequested("j", unit("u", 1, 1, 1)),
                        "job j: unit.name: the job already has a unit 'u'"),
                Arguments.of("desire below granted", new UnitDesireChanged(UnitId.parse("j/u"), 3),
                        "unit j/u: desired: cannot go below the 11 slots it holds (asked 3)"),
                Arguments.of("desire of unknown unit", new UnitDesireChanged(UnitId.parse("j/v"), 3),
                        "unit j/v: unit: no live unit 'j/v'"),
                Arguments.of("release more than held", new GrantReleased(UnitId.parse("j/u"), "n0", 5),
                        "unit j/u: slots: holds 4 slots on node n0, cannot release 5"),
                Arguments.of("release on unknown node", new GrantReleased(UnitId.parse("j/u"), "n7", 1),
                        "unit j/u: node: no node named 'n7'"),
                Arguments.of("release of unknown unit", new GrantReleased(UnitId.parse("x/y"), "n0", 1),
                        "unit x/y: unit: no live unit 'x/y'"),
                Arguments.of("release zero slots", new GrantReleased(UnitId.parse("j/u"), "n0", 0),
                        "cannot release 0"),
                Arguments.of("cancel unknown unit", new UnitCancelled(UnitId.parse("j/zz")), "no live unit 'j/zz'"),
                Arguments.of("cancel unknown job", new JobCancelled("ghost"), "no running job with id 'ghost'"),
                Arguments.of("activate unknown policy", new PolicyActivated("lottery"),
                        "unknown policy 'lottery'; known: fifo, flat, hunger"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusals")
    void refusedWithAPreciseErrorAndNothingChanges(String what, InputEvent event, String message) {
        Harness h = busy();
        String before = h.fingerprint();
        int logged = h.log.size();
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> h.handle(event));
        assertTrue(e.getMessage().contains(message), () -> what + ": got " + e.getMessage());
        assertEquals(before, h.fingerprint(), what + " changed the state");
        assertEquals(logged, h.log.size(), what + " emitted decisions");
        h.engine.checkInvariants();
    }

    @Test
    void specsRejectNegativeAndMalformedFieldsByName() {
        assertMessage(() -> new NodeSpec("a b", "r", Resources.of(1, 1)), "node a b: name: 'a b' is not a valid name");
        assertMessage(() -> new NodeSpec("n", "r", Resources.of(1, -1)), "node n: capacity.mem: must not be negative, got -1");
        assertMessage(() -> unit("u", -100, 1, 1), "unit u: slot.cpu: must not be negative, got -100");
        assertMessage(() -> unit("u", 0, 0, 1), "unit u: slot: must ask for some resource");
        assertMessage(() -> unit("u", 1, 1, -3), "unit u: desired: must be at least 0, got -3");
        assertMessage(() -> UnitSpec.builder("u").slot(1, 1).desired(1).maxPerNode(-1).build(),
                "unit u: maxPerNode: must be at least 0, got -1");
        assertMessage(() -> Locality.machine("m", 0), "count: must be at least 1, got 0");
        assertMessage(() -> new Locality(Locality.Level.CLUSTER, "m1", 1), "a CLUSTER preference takes no target");
        assertMessage(() -> new JobSpec("j", null, null, 0, false, List.of()), "job j: units: a job needs at least one unit");
        assertMessage(() -> UnitSpec.builder("u").slot(1, 1).desired(1).prefer(Locality.machine("m", 1))
                .prefer(Locality.machine("m", 2)).build(), "machine 'm' is named twice");
        assertMessage(() -> Resources.parse("cpu=x"), "amount of 'cpu' is not an integer");
        assertMessage(() -> Resources.of(1, 1, Map.of("bad name", 1L)), "resource name 'bad name' is invalid");
    }

    private static void assertMessage(Runnable r, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, r::run);
        assertTrue(e.getMessage().contains(message), () -> "expected '" + message + "' in: " + e.getMessage());
    }
}
