package granary.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
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

import granary.api.event.ClockTick;
import granary.api.event.PolicyActivated;
import granary.api.event.Receipt;
import granary.engine.Engine;
import granary.engine.probe.EngineProbe;

/**
 * A unit-order swap with {@code waiting} units queued ({@link Scenarios#swap}: 5,000 full nodes of 64
 * cores, about 128,000 of the waiting units holding 1..4 slots, priorities 0..3).
 *
 * <p>Two figures per swap (docs/scheduling.md, "Swapping the order off the engine thread"):
 * <ul>
 *   <li><b>the score</b> (single shot): from {@code handle(PolicyActivated(..))} until the new order is
 *       in force. With {@code offThread=false} (a direct executor, as before) that is the one
 *       {@code handle} call; with {@code offThread=true} it is the activation, the build on a background
 *       thread, and the {@code handle(ClockTick)} that swaps the built order in;</li>
 *   <li><b>the engine-thread pause</b>: the time the engine is blocked, i.e. the longer of the two
 *       {@code handle} calls (the activation with its snapshot, the swap-in), timed inside each op and
 *       printed as "pause" lines (median, min, max per trial) at the end of the trial. With a direct
 *       executor the pause is the whole score.</li>
 * </ul>
 * The engine is single-threaded: nothing can be decided during a {@code handle} call. Before each op,
 * outside the measured time, the opposite swap puts the engine back into the starting order. FAIR reads
 * grants and is compared through its comparator (on frozen inputs when built off the thread); FIFO and
 * SUBMITWINDOW declare sort keys. Each swap must decide nothing (the cluster stays full), which the
 * benchmark checks.
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

    /** true: the new order is built on a background thread; false: a direct executor, the swap as before. */
    @Param({"true"})
    public boolean offThread;

    private Engine engine;
    private String current;
    private ExecutorService builder;
    private final Semaphore built = new Semaphore(0);
    private final List<Long> pauses = new ArrayList<>();
    private final List<Long> activations = new ArrayList<>();
    private final List<Long> swapIns = new ArrayList<>();
    private boolean measuring;

    @Setup(Level.Trial)
    public void setUp() {
        builder = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "bench-reorder");
            t.setDaemon(true);
            return t;
        });
        engine = Scenarios.swap(nodesFor(waiting), waiting, 11, sortKeys, offThread ? build -> builder.execute(() -> {
            build.run();
            built.release();
        }) : Runnable::run);
        current = "fifo";
    }

    /** Activates {@code name} and waits until it is in force; times the engine-thread calls. */
    private Receipt activate(String name) {
        long t0 = System.nanoTime();
        Receipt r = Scenarios.expect(engine, new PolicyActivated(name), 0);
        long t1 = System.nanoTime();
        if (r.notes().isEmpty()) {
            throw new IllegalStateException("activating " + name + " changed nothing");
        }
        long swapIn = 0;
        if (offThread) {
            built.acquireUninterruptibly();
            long t2 = System.nanoTime();
            Scenarios.expect(engine, new ClockTick(), 0);   // swaps it in (a small build may be in at the activation already)
            swapIn = System.nanoTime() - t2;
        }
        String inForce = EngineProbe.workload(engine).unitOrder().name();
        if (!inForce.equals(name)) {
            throw new IllegalStateException(name + " activated but " + inForce + " is in force");
        }
        if (measuring) {
            activations.add(t1 - t0);
            swapIns.add(swapIn);
            pauses.add(Math.max(t1 - t0, swapIn));
        }
        current = name;
        return r;
    }

    @Setup(Level.Iteration)
    public void startFrom(org.openjdk.jmh.infra.BenchmarkParams params, org.openjdk.jmh.infra.IterationParams iteration) {
        String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
        String from = switch (method) {
            case "fifoToFair", "fifoToSubmitwindow" -> "fifo";
            case "submitwindowToFifo" -> "submitwindow";
            default -> "fair";
        };
        measuring = false;
        if (!current.equals(from)) {
            activate(from);
        }
        System.gc();   // the garbage of the previous swaps is not this swap's cost
        measuring = iteration.getType() == org.openjdk.jmh.runner.IterationType.MEASUREMENT;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        builder.shutdownNow();
        engine.checkInvariants();
        if (engine.view().status().waitingUnits() != waiting) {
            throw new IllegalStateException("the queue drifted: " + engine.view().status());
        }
        System.out.printf(Locale.ROOT, "%npause (engine thread blocked, ms): median %s, min %s, max %s; "
                + "activation median %s, swap-in median %s; %d measured swaps, offThread=%s%n",
                ms(median(pauses)), ms(min(pauses)), ms(max(pauses)), ms(median(activations)), ms(median(swapIns)),
                pauses.size(), offThread);
        System.out.printf(Locale.ROOT, "pause single shots (ms): %s%n",
                pauses.stream().map(PolicySwapBench::ms).toList());
    }

    private static long median(List<Long> xs) {
        List<Long> s = new ArrayList<>(xs);
        s.sort(null);
        return s.isEmpty() ? 0 : s.get(s.size() / 2);
    }

    private static long min(List<Long> xs) {
        return xs.stream().mapToLong(Long::longValue).min().orElse(0);
    }

    private static long max(List<Long> xs) {
        return xs.stream().mapToLong(Long::longValue).max().orElse(0);
    }

    private static String ms(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
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
