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

import granary.api.event.Receipt;
import granary.api.event.PolicyActivated;
import granary.api.event.PolicyInstalled;
import granary.engine.Engine;
import granary.policy.fair.FairPolicy;

/**
 * The part of a unit-order swap that grows with the cluster, not the queue: after every policy
 * change the engine marks every node freed ({@code Engine.policiesChanged}) and the next cycle runs
 * a passive fill on each of them. Here the queue is small (1,000 waiting units, the passive-pick
 * TAIL state) and the cluster large and full, so the swap is mostly that refill. One op = one swap,
 * alternating FIFO → FAIR and FAIR → FIFO; each must decide nothing.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class PolicySwapNodesBench {

    @Param({"1000", "10000", "100000"})
    public int nodes;

    private Engine engine;
    private boolean fair;

    @Setup(Level.Trial)
    public void setUp() {
        engine = Scenarios.passive(nodes, 1000, Scenarios.Layout.TAIL).engine();
        engine.handle(new PolicyInstalled(new FairPolicy(), "bench"));
        Scenarios.settle();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        engine.checkInvariants();
    }

    @Benchmark
    public Receipt swap() {
        fair = !fair;
        return Scenarios.expect(engine, new PolicyActivated(fair ? "fair" : "fifo"), 0);
    }
}
