package granary.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

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

import granary.api.model.JobSpec;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.bench.Scenarios.Layout;
import granary.engine.state.Dims;
import granary.engine.state.FitQueue;
import granary.engine.state.JobState;
import granary.engine.state.UnitState;
import granary.policy.fifo.FifoPolicy;

/**
 * The passive-pick search alone (docs/scheduling.md, "The fit search"): {@link FitQueue#first} against
 * a naive linear scan of the same units in the same order, for a node whose free space is one small
 * slot (1 core, 4 GB). {@code queued} units, 0.1% of them (at least one) fit; the others are too big
 * ({@link Scenarios.Layout}: TAIL = the fitting units last, too-big units big in both dimensions;
 * MIXED = the same, too-big units alternately cpu-heavy and memory-heavy; SPREAD = the fitting units
 * at random places). The queue is ordered as the engine orders it under FIFO; nothing changes between
 * ops. Both searches accept the first unit that fits.
 *
 * <p>The queue and its units are the engine's own ({@code granary.engine.state}), used through the
 * engine's benchmark seam (see {@code granary.engine.probe}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class FitQueueBench {

    private static final Predicate<UnitState> ANY = u -> true;

    @Param({"1000", "10000", "100000", "1000000"})
    public int queued;

    @Param({"TAIL", "MIXED", "SPREAD"})
    public Layout layout;

    private FitQueue queue;
    private UnitState[] inOrder;
    private long[] free;

    /** The engine's comparator under FIFO: the policy's order, then arrival sequence. */
    static Comparator<UnitState> fifoOrder() {
        FifoPolicy fifo = new FifoPolicy();
        return ((Comparator<UnitState>) fifo::compare).thenComparing(Comparator.comparingLong(UnitState::sequence));
    }

    @Setup(Level.Trial)
    public void setUp() {
        Dims dims = new Dims();
        free = dims.vector(Scenarios.SMALL);
        JobState job = new JobState(JobSpec.of("j", Scenarios.GROUP, Scenarios.unit(Scenarios.SMALL, 1, 0)), 0);
        UnitSpec fits = Scenarios.unit(Scenarios.SMALL, 1, 0);
        UnitSpec[] big = {Scenarios.unit(layout.bigSlot(0), 1, 0), Scenarios.unit(layout.bigSlot(1), 1, 0)};
        boolean[] fit = Scenarios.fittingPositions(queued, layout, 42);
        List<UnitState> units = new ArrayList<>(queued);
        int b = 0;
        for (int i = 0; i < queued; i++) {
            units.add(new UnitState(job, fit[i] ? fits : big[b++ % 2], i, 1_000_000 + i, dims));
        }
        queue = new FitQueue(fifoOrder());
        for (UnitState u : units) {
            queue.add(u);
        }
        List<UnitState> order = new ArrayList<>(queued);
        queue.forEach(order::add);   // the scan walks the queue's own order
        inOrder = order.toArray(new UnitState[0]);
        UnitState t = tree();
        UnitState l = linear();
        if (t == null || t != l || !Dims.fits(t.slotVector(), free)) {
            throw new IllegalStateException("tree found " + t + ", scan found " + l);
        }
        Scenarios.settle();
    }

    /** The engine's search: O(log N) when the too-big units are big in every dimension. */
    @Benchmark
    public UnitState tree() {
        return queue.first(free, ANY);
    }

    /** What the fit search exists to avoid: walk the queue in order until a unit fits. */
    @Benchmark
    public UnitState linear() {
        long[] f = free;
        for (UnitState u : inOrder) {
            if (Dims.fits(u.slotVector(), f) && ANY.test(u)) {
                return u;
            }
        }
        return null;
    }
}
