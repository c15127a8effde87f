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

import granary.api.model.JobSpec;
import granary.api.event.Receipt;
import granary.api.event.JobCancelled;
import granary.api.event.JobSubmitted;
import granary.engine.Engine;

/**
 * Active placement (docs/scheduling.md, "Active scheduling") through the whole engine: a unit of {@link #SLOTS} slots of one core,
 * CLUSTER locality, placed round-robin (one slot per fitting node per lap, from the cluster's
 * cursor) on {@code nodes} nodes of which half are full and the others hold 0..15 of 16 slots
 * ({@link Scenarios#partlyFilled}).
 *
 * <ul>
 *   <li>{@link #placeAndCancel}: one op = {@code JobSubmitted} (100 grants on 100 different nodes)
 *       + {@code JobCancelled} (100 returns, each reported as {@code Revoked}; the freed nodes meet an
 *       empty queue). The state after
 *       the op is the state before it, except the round-robin cursor, which moves on ~200 node
 *       positions per op and wraps around: every op searches another stretch of the same cluster.</li>
 *   <li>{@link #placeOnly}: the {@code JobSubmitted} alone; the cancel runs after each invocation,
 *       outside the measured time (JMH Level.Invocation; the op takes tens of microseconds, far above
 *       the timer's resolution).</li>
 * </ul>
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class ActivePlacementBench {

    /** Slots of the placed unit. */
    public static final int SLOTS = 100;

    @State(Scope.Benchmark)
    public static class Cluster {
        @Param({"1000", "10000", "100000"})
        public int nodes;

        Engine engine;
        JobSubmitted submit;
        JobCancelled cancel;
        long held;

        @Setup(Level.Trial)
        public void setUp() {
            engine = Scenarios.partlyFilled(nodes, 7);
            held = engine.view().status().grantedSlots();
            JobSpec probe = Scenarios.probe("probe", SLOTS);
            submit = new JobSubmitted(probe);
            cancel = new JobCancelled(probe.id());
            Scenarios.settle();
        }

        Receipt place() {
            return Scenarios.expect(engine, submit, SLOTS);   // 100 slots, one on each of 100 different nodes
        }

        Receipt release() {
            return Scenarios.expect(engine, cancel, SLOTS);   // every returned slot is reported as Revoked("cancelled")
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            engine.checkInvariants();
            if (engine.view().status().grantedSlots() != held || engine.view().job("probe") != null) {
                throw new IllegalStateException("the cluster drifted: " + engine.view().status());
            }
        }
    }

    /** The same cluster, the cancel done after every invocation, outside the measured time. */
    @State(Scope.Benchmark)
    public static class PlacedCluster extends Cluster {
        @TearDown(Level.Invocation)
        public void cancel() {
            release();
        }
    }

    @Benchmark
    public Receipt placeAndCancel(Cluster c) {
        c.place();
        return c.release();
    }

    @Benchmark
    public Receipt placeOnly(PlacedCluster c) {
        return c.place();
    }
}
