package granary.testkit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;

import granary.api.spi.CycleAction;
import granary.api.spi.CycleContext;
import granary.api.spi.EngineView;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;

import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;

/** The contract itself: it passes a sound policy and catches a nondeterministic and a disruptive one. */
class PolicyContractTest {

    /** Priority, then arrival: sound. */
    public static final class Toy implements UnitOrder {
        @Override
        public String name() {
            return "toy";
        }

        @Override
        public int compare(UnitView a, UnitView b) {
            return a.priority() != b.priority() ? Integer.compare(b.priority(), a.priority())
                    : Long.compare(a.submitTime(), b.submitTime());
        }
    }

    /** Orders by the identity of the unit's spec: stable within a run, different from run to run. */
    public static final class Shuffled implements UnitOrder {
        @Override
        public String name() {
            return "shuffled";
        }

        @Override
        public int compare(UnitView a, UnitView b) {
            int c = Integer.compare(System.identityHashCode(a.spec()), System.identityHashCode(b.spec()));
            return c != 0 ? c : a.id().toString().compareTo(b.id().toString());
        }
    }

    /** A sound order that, each time it becomes active, takes one slot away from someone. */
    public static final class Disruptive implements UnitOrder, CycleAction {
        private boolean fresh;
        private EngineView view;

        @Override
        public String name() {
            return "disruptive";
        }

        @Override
        public void attach(EngineView v) {
            view = v;
            fresh = true;
        }

        @Override
        public int compare(UnitView a, UnitView b) {
            return Long.compare(a.submitTime(), b.submitTime());
        }

        @Override
        public void beforeAllocate(CycleContext ctx) {
            if (!fresh) {
                return;
            }
            for (var j : view.jobs()) {
                for (UnitView u : j.units()) {
                    if (u.granted() > 0) {
                        fresh = false;
                        ctx.revoke(u.id(), u.allocations().keySet().iterator().next(), 1, "test");
                        return;
                    }
                }
            }
        }
    }

    /** The contract for a given declaration, its checks called one by one here (not run on its own). */
    @Disabled("its checks are called by PolicyContractTest")
    static final class Probe extends PolicyContract {
        private final PolicyDeclaration declaration;

        Probe(PolicyDeclaration declaration, Path dir) {
            this.declaration = declaration;
            this.dir = dir;
        }

        @Override
        protected PolicyDeclaration declaration() {
            return declaration;
        }
    }

    private static PolicyContract contract(PolicyDeclaration d, Path dir) {
        return new Probe(d, dir);
    }

    @Test
    void aSoundPolicyPasses(@TempDir Path dir) {
        PolicyContract c = contract(PolicyDeclaration.of("toy", Toy.class).description("test").factory(s -> new Toy())
                .build(), dir);
        assertDoesNotThrow(c::installsAndActivates);
        assertDoesNotThrow(c::swappingAwayAndBackWithWaitingWorkLosesNothing);
        assertDoesNotThrow(c::uninstallingFallsBackWithoutLosingAnythingAndANewInstanceTakesOver);
        assertDoesNotThrow(c::theSameInputGivesTheSameGrantsInTheSameOrder);
    }

    @Test
    void aNondeterministicPolicyFails(@TempDir Path dir) {
        PolicyContract c = contract(PolicyDeclaration.of("shuffled", Shuffled.class).description("test")
                .factory(s -> new Shuffled()).build(), dir);
        AssertionFailedError e = assertThrows(AssertionFailedError.class, c::theSameInputGivesTheSameGrantsInTheSameOrder);
        assertTrue(e.getMessage().startsWith("run 2 "), e.getMessage());
    }

    @Test
    void aPolicyThatRevokesWhenItComesBackFails(@TempDir Path dir) {
        PolicyContract c = contract(PolicyDeclaration.of("disruptive", Disruptive.class).description("test")
                .factory(s -> new Disruptive()).build(), dir);
        AssertionFailedError e = assertThrows(AssertionFailedError.class, c::swappingAwayAndBackWithWaitingWorkLosesNothing);
        assertTrue(e.getMessage().contains("nothing revoked"), e.getMessage());
    }
}
