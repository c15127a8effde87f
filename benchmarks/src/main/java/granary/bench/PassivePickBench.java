package granary.bench;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import granary.api.event.Receipt;
import granary.api.event.GrantReleased;
import granary.api.event.Granted;
import granary.api.event.UnitDesireChanged;
import granary.engine.Engine;

/**
 * Passive pick through the whole engine (docs/scheduling.md, "Passive scheduling"): a full cluster of 1,000 nodes (16 small slots
 * each), {@code waiting} units in the group queue, 0.1% of them (at least one) small enough for one
 * freed slot, the others too big ({@link Scenarios.Layout}).
 *
 * <p>One op = two input events, so that op k costs what op 1 does:
 * <ol>
 *   <li>{@code GrantReleased(W, X, 1)}: the first fitting unit W (behind all the too-big units in
 *       TAIL and MIXED) holds one slot on node X, the cluster's only slot that is not part of the
 *       fill, and wants two. Releasing it lowers W's desire to 1 and frees X; the cycle's passive
 *       fill searches the queue and picks W again (the only unit before the other fitting ones),
 *       granting it X. The benchmark checks that exactly this one grant happened.</li>
 *   <li>{@code UnitDesireChanged(W, 2)}: W wants one more slot again; active placement finds no room
 *       (the root of the node index says so at once) and W waits at its old place in the queue.</li>
 * </ol>
 * The state after the op equals the state before it, so the queue size, W's position and the
 * cluster never drift. The op also contains the fixed costs of two events (validation, a receipt,
 * re-queueing W three times in O(log N)); compare with {@link FitQueueBench} for the
 * search alone.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms6g", "-Xmx6g", "-XX:+AlwaysPreTouch"})
public class PassivePickBench {

    /** Waiting units in the queue. */
    @Param({"1000", "10000", "100000", "1000000"})
    public int waiting;

    @Param({"TAIL", "MIXED"})
    public Scenarios.Layout layout;

    private Engine engine;
    private GrantReleased release;
    private UnitDesireChanged raise;

    @Setup(Level.Trial)
    public void setUp() {
        Scenarios.Passive p = Scenarios.passive(1000, waiting, layout);
        engine = p.engine();
        release = new GrantReleased(p.picked(), p.node(), 1);
        raise = new UnitDesireChanged(p.picked(), 2);
        pick(null);   // once before measuring: fails here if the steady step does not hold
        engine.checkInvariants();
        Scenarios.settle();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        Scenarios.checkSteady(engine, waiting);
    }

    @Benchmark
    public void pick(Blackhole bh) {
        Receipt freed = engine.handle(release);
        // the release itself is reported first (Released), then the pick: exactly one grant, to the same unit
        java.util.List<granary.api.event.OutputEvent> grants = freed.outputs().stream().filter(o -> o instanceof Granted).toList();
        if (grants.size() != 1 || !((Granted) grants.get(0)).unit().equals(release.unit())) {
            throw new IllegalStateException("passive fill did not pick " + release.unit() + ": " + freed.outputs());
        }
        Receipt raised = engine.handle(raise);
        if (bh != null) {
            bh.consume(freed);
            bh.consume(raised);
        }
    }
}
