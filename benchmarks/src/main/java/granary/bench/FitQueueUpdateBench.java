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
import org.openjdk.jmh.annotations.Warmup;

import granary.api.model.JobSpec;
import granary.api.model.UnitSpec;
import granary.engine.state.Dims;
import granary.engine.state.FitQueue;
import granary.engine.state.JobState;
import granary.engine.state.UnitState;

/**
 * What one queue update costs: {@code FitQueue.remove} + {@code FitQueue.add} of the first fitting
 * unit of the TAIL layout of {@link FitQueueBench} (the unit the engine-level passive pick grants).
 * Every grant that satisfies a unit removes it from its queue, every new desire adds it: in
 * {@code granary.bench.PassivePickBench} one op does this twice (plus one search).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch"})
public class FitQueueUpdateBench {

    @Param({"1000", "10000", "100000", "1000000"})
    public int queued;

    private FitQueue queue;
    private UnitState target;

    @Setup(Level.Trial)
    public void setUp() {
        Dims dims = new Dims();
        JobState job = new JobState(JobSpec.of("j", Scenarios.GROUP, Scenarios.unit(Scenarios.SMALL, 1, 0)), 0);
        UnitSpec fits = Scenarios.unit(Scenarios.SMALL, 1, 0);
        UnitSpec big = Scenarios.unit(Scenarios.BIG, 1, 0);
        boolean[] fit = Scenarios.fittingPositions(queued, Scenarios.Layout.TAIL, 42);
        queue = new FitQueue(FitQueueBench.fifoOrder());
        for (int i = 0; i < queued; i++) {
            UnitState u = new UnitState(job, fit[i] ? fits : big, i, 1_000_000 + i, dims);
            queue.add(u);
            if (fit[i] && target == null) {
                target = u;
            }
        }
        requeue();
        if (queue.size() != queued || queue.first(dims.vector(Scenarios.SMALL), u -> true) != target) {
            throw new IllegalStateException("queue broken");
        }
        Scenarios.settle();
    }

    @Benchmark
    public boolean requeue() {
        boolean removed = queue.remove(target);
        queue.add(target);
        return removed;
    }
}
