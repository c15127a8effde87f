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
import granary.engine.Engine;

/**
 * The scheduling pause of a unit-order swap: the time {@code Engine.handle(PolicyActivated(..))}
 * takes with {@code waiting} units queued ({@link Scenarios#swap}: 5,000 full nodes of 64 cores,
 * about 128,000 of the waiting units holding 1..4 slots, priorities 0..3). Nothing else can be
 * decided meanwhile: the engine is single-threaded.
 *
 * <p>Single-shot: every measured op is one swap; before each one, outside the measured time, the
 * opposite swap puts the engine back into the starting order. FAIR reads grants and is compared
 * through its comparator; FIFO and SUBMITWINDOW declare sort keys (docs/scheduling.md, "Sort keys"),
 * so FIFO ↔ SUBMITWINDOW is a swap between two keyed orders. Each swap must decide nothing (the
 * cluster stays full), which the benchmark checks.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 10)
@Fork(value = 1, jvmArgsAppend = {"-Xms8g", "-Xmx8g", "-XX:+AlwaysPreTouch"})
public class PolicySwapBench {

    public static final int NODES = 5000;

    /**
     * The scenario's cluster for {@code waiting} units: {@link #NODES} at 10^6 (the measured case),
     * fewer for a smaller queue, so that the cluster is still full and every unit still waits (the
     * suite's smoke run uses 1,000 units).
     */
    public static int nodesFor(int waiting) {
        return Math.min(NODES, Math.max(1, waiting / 200));
    }

    @Param({"1000000"})
    public int waiting;

    /** false: FIFO and SUBMITWINDOW without their sort keys (compared as before keys), for comparison. */
    @Param({"true"})
    public boolean sortKeys;

    private Engine engine;
    private String current;

    @Setup(Level.Trial)
    public void setUp() {
        engine = Scenarios.swap(nodesFor(waiting), waiting, 11, sortKeys);
        current = "fifo";
    }

    private Receipt activate(String name) {
        Receipt r = Scenarios.expect(engine, new PolicyActivated(name), 0);
        if (r.notes().isEmpty()) {
            throw new IllegalStateException("activating " + name + " changed nothing");
        }
        current = name;
        return r;
    }

    @Setup(Level.Iteration)
    public void startFrom(org.openjdk.jmh.infra.BenchmarkParams params) {
        String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
        String from = switch (method) {
            case "fifoToFair", "fifoToSubmitwindow" -> "fifo";
            case "submitwindowToFifo" -> "submitwindow";
            default -> "fair";
        };
        if (!current.equals(from)) {
            activate(from);
        }
        System.gc();   // the garbage of the previous swaps is not this swap's cost
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        engine.checkInvariants();
        if (engine.view().status().waitingUnits() != waiting) {
            throw new IllegalStateException("the queue drifted: " + engine.view().status());
        }
    }

    @Benchmark
    public Receipt fifoToFair() {
        return activate("fair");
    }

    @Benchmark
    public Receipt fairToFifo() {
        return activate("fifo");
    }

    @Benchmark
    public Receipt fifoToSubmitwindow() {
        return activate("submitwindow");
    }

    @Benchmark
    public Receipt submitwindowToFifo() {
        return activate("fifo");
    }
}
