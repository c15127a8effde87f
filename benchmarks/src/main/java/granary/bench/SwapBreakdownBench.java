package granary.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

import granary.api.event.PolicyActivated;
import granary.engine.Engine;
import granary.engine.probe.EngineProbe;
import granary.engine.state.FitQueue;
import granary.engine.state.UnitState;
import granary.engine.state.Workload;

/**
 * Where the swap pause of {@link PolicySwapBench} goes: the parts of {@code FitQueue.reorder} on the
 * very queue of that scenario (the engine's group queue, reached through the engine's benchmark seam
 * {@code granary.engine.probe}), each timed alone, single-shot.
 *
 * <ul>
 *   <li>{@link #collect}: iterate the queue in order into a list (the first step of the treap's reorder);</li>
 *   <li>{@link #sortFifoToFair} / {@link #sortFairToFifo}: {@code List.sort} of that list under the
 *       engine's own comparator for the new order (taken from {@code Workload.order()} after a real
 *       swap; the copy is made outside the measured time);</li>
 *   <li>{@link #reorderFifoToFair}: the whole {@code FitQueue.reorder} (since 8ccf3f6 an in-place
 *       heapify of every shape bucket and a rebuild of the bucket index; before, collect + sort +
 *       treap build);</li>
 *   <li>{@link #reorderSameOrder}: reorder under the order already in effect.</li>
 * </ul>
 * The engine-level swap minus {@code reorderFifoToFair} is what the rest of the event costs (policy
 * bookkeeping, and the passive fill of every node the engine marks freed after a policy change).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3)
@Measurement(iterations = 10)
@Fork(value = 1, jvmArgsAppend = {"-Xms8g", "-Xmx8g", "-XX:+AlwaysPreTouch"})
public class SwapBreakdownBench {

    @Param({"1000000"})
    public int waiting;

    private FitQueue queue;
    private Comparator<UnitState> fifo;
    private Comparator<UnitState> fair;
    private List<UnitState> fifoSorted;
    private List<UnitState> fairSorted;
    private List<UnitState> toSort;

    @Setup(Level.Trial)
    public void setUp() {
        Engine engine = Scenarios.swap(PolicySwapBench.nodesFor(waiting), waiting, 11);
        Workload w = EngineProbe.workload(engine);
        fifo = w.order();   // the engine's own comparators for the two orders
        Scenarios.expect(engine, new PolicyActivated("fair"), 0);
        fair = w.order();
        Scenarios.expect(engine, new PolicyActivated("fifo"), 0);
        queue = w.group(Scenarios.GROUP).queue();
        queue.reorder(fifo);
        fifoSorted = collect();
        fairSorted = new ArrayList<>(fifoSorted);
        fairSorted.sort(fair);
        Scenarios.settle();
    }

    @Setup(Level.Iteration)
    public void prepare(BenchmarkParams params) {
        String b = params.getBenchmark();
        if (b.endsWith("sortFifoToFair")) {
            toSort = new ArrayList<>(fifoSorted);
        } else if (b.endsWith("sortFairToFifo")) {
            toSort = new ArrayList<>(fairSorted);
        } else if (b.endsWith("reorderFifoToFair") || b.endsWith("reorderSameOrder")) {
            queue.reorder(fifo);
        }
        System.gc();
    }

    @Benchmark
    public List<UnitState> collect() {
        List<UnitState> all = new ArrayList<>(queue.size());
        queue.forEach(all::add);
        return all;
    }

    @Benchmark
    public List<UnitState> sortFifoToFair() {
        toSort.sort(fair);
        return toSort;
    }

    @Benchmark
    public List<UnitState> sortFairToFifo() {
        toSort.sort(fifo);
        return toSort;
    }

    @Benchmark
    public FitQueue reorderFifoToFair() {
        queue.reorder(fair);
        return queue;
    }

    @Benchmark
    public FitQueue reorderSameOrder() {
        queue.reorder(fifo);
        return queue;
    }
}
