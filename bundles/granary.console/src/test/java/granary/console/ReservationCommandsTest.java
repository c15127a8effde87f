package granary.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import granary.api.model.JobSpec;
import granary.api.model.ManualClock;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.api.event.ClockTick;
import granary.api.event.InputEvent;
import granary.api.event.JobCancelled;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.PolicyInstalled;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.engine.EventLoop;
import granary.policy.fifo.FifoPolicy;
import granary.policy.gang.GangPolicy;
import granary.policy.reservation.ReservationOptions;
import granary.policy.reservation.ReservationPolicy;
import granary.policy.reservation.ReservationProvider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** granary:reservations over a real engine with the real gang and reservation policies, on a manual clock. */
class ReservationCommandsTest {

    private final ManualClock clock = new ManualClock(0);
    private EventLoop loop;

    @BeforeEach
    void start() {
        // no idle ticks: time moves only when the test says so
        loop = new EventLoop(new Engine(clock, new EngineOptions(List.of("fifo", "gang", "reservation"), List.of("fifo"),
                true)), 3_600_000, "test").start();
        send(new PolicyInstalled(new FifoPolicy(), "granary.policy.fifo 0.1.0"));
        send(new PolicyInstalled(new GangPolicy(), "granary.policy.gang 0.1.0"));
        send(new PolicyInstalled(new ReservationPolicy(ReservationOptions.DEFAULTS.withThreshold(10_000)),
                "granary.policy.reservation 0.1.0"));
        send(new NodeAdded(new NodeSpec("n0", "r1", Resources.of(400, 4000))));
        send(new NodeAdded(new NodeSpec("n1", "r1", Resources.of(400, 4000))));
    }

    @AfterEach
    void stop() {
        loop.close();
    }

    /** granary:reservations, as the console makes it from the policy's declaration. */
    private static String reservations(EventLoop on) {
        return PolicyConsole.functions(ReservationProvider.DECLARATION, on).get(0).run(List.of());
    }

    private void send(InputEvent e) {
        Commands.await(loop.submit(e));
    }

    private void tickAt(long t) {
        clock.set(t);
        send(new ClockTick());
    }

    @Test
    void showsTargetWaitLockedNodesAndProgress() {
        assertEquals("no reservation", reservations(loop));
        send(new JobSubmitted(JobSpec.of("fill", null, UnitSpec.builder("u").slot(100, 100).desired(2).build())));
        send(new JobSubmitted(new JobSpec("big", null, null, 0, true,
                List.of(UnitSpec.builder("w").slot(100, 100).desired(7).build()))));
        assertEquals("no reservation", reservations(loop), "not yet past the threshold");

        tickAt(10_000);
        assertEquals("""
                target=big
                waited=10.0s
                locked_nodes=n0 (1 of 2 planned)
                locked_capacity=cpu=400,mem=4000
                needed=cpu=700,mem=700
                progress=57% (locked cpu 400 of 700 needed)
                expires_in=600.0s""", reservations(loop));

        tickAt(12_500);
        assertEquals("""
                target=big
                waited=12.5s
                locked_nodes=n0,n1 (2 of 2 planned)
                locked_capacity=cpu=800,mem=8000
                needed=cpu=700,mem=700
                progress=100% (locked cpu 800 of 700 needed)
                expires_in=597.5s""", reservations(loop));

        send(new JobCancelled("big"));
        assertEquals("no reservation", reservations(loop));
    }

    @Test
    void withoutTheReservationPolicyTheCommandSaysSo() {
        EventLoop bare = new EventLoop(new Engine(clock, new EngineOptions(List.of("fifo"), List.of("fifo"), true)),
                3_600_000, "bare").start();
        try {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> reservations(bare));
            assertEquals("policy reservation is not installed (granary:policies lists what is)", e.getMessage());
        } finally {
            bare.close();
        }
    }
}
