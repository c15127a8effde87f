package granary.testkit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.BooleanSupplier;

import granary.api.event.GrantReleased;
import granary.api.event.Granted;
import granary.api.event.JobCancelled;
import granary.api.event.Receipt;
import granary.api.model.JobSpec;
import granary.api.model.ManualClock;
import granary.api.model.UnitId;
import granary.api.spi.Policy;
import granary.api.spi.UnitView;

/**
 * A discrete-event run of a {@link TestEngine}: jobs arrive at given times, every slot granted runs
 * for its job's duration and is then released, and the clock ticks every {@link #TICK} ms as in the
 * live runtime (a tick is one scheduling round). Same arrivals, same run.
 */
public class TimedRun extends TestEngine {

    /** The live runtime's tick. */
    public static final long TICK = 1_000;

    /**
     * A job that arrives at {@code at} and whose slots each run {@code runs} ms once granted; or,
     * with {@code cancel}, the cancellation of that job at {@code at} if it is still there.
     */
    public record Arrival(long at, JobSpec job, long runs, String cancel) {
        public Arrival(long at, JobSpec job, long runs) {
            this(at, job, runs, null);
        }

        public static Arrival cancel(long at, String job) {
            return new Arrival(at, null, 0, job);
        }
    }

    private record Release(long at, long seq, UnitId unit, String node, int slots) {
    }

    private final Map<String, Long> runs = new HashMap<>();
    private final PriorityQueue<Release> releases = new PriorityQueue<>(
            Comparator.comparingLong(Release::at).thenComparingLong(Release::seq));
    private long seq;
    private long nextTick;
    private int rounds;

    /** A run from time 0 with the given selection (fallback: {@code fifo}) and policies installed. */
    public TimedRun(List<String> selection, Policy... policies) {
        this(new ManualClock(0), selection, List.of("fifo"), policies);
    }

    public TimedRun(ManualClock clock, List<String> selection, List<String> fallback, Policy... policies) {
        super(clock, selection, fallback, policies);
        nextTick = clock.millis() + TICK;
        engine.subscribe(o -> {
            if (o instanceof Granted g) {
                long d = runs.getOrDefault(g.unit().job(), Long.MAX_VALUE / 4);
                releases.add(new Release(clock.millis() + d, seq++, g.unit(), g.node(), g.slots()));
            }
        });
    }

    @Override
    public TimedRun nodes(String prefix, String room, int count, long cpu, long mem) {
        super.nodes(prefix, room, count, cpu, mem);
        return this;
    }

    /** Submits now; its slots will run {@code runsMillis} each. */
    public Receipt submit(JobSpec job, long runsMillis) {
        runs.put(job.id(), runsMillis);
        return submit(job);
    }

    /** Ticks handled so far. */
    public int rounds() {
        return rounds;
    }

    /** Processes arrivals (sorted by time), releases and ticks in time order until {@code end}; later arrivals are left. */
    public void runUntil(long end, List<Arrival> arrivals) {
        int next = 0;
        while (true) {
            long tArrive = next < arrivals.size() ? arrivals.get(next).at() : Long.MAX_VALUE;
            long tRelease = releases.isEmpty() ? Long.MAX_VALUE : releases.peek().at();
            long t = Math.min(nextTick, Math.min(tArrive, tRelease));
            if (t > end) {
                clock.set(Math.max(clock.millis(), end));
                return;
            }
            clock.set(t);
            if (t == tRelease) {
                release(releases.poll());
            } else if (t == tArrive) {
                Arrival a = arrivals.get(next++);
                if (a.cancel() == null) {
                    submit(a.job(), a.runs());
                } else if (engine.view().job(a.cancel()) != null) {
                    handle(new JobCancelled(a.cancel()));
                }
            } else {
                nextTick += TICK;
                rounds++;
                tick();
            }
        }
    }

    /** Runs until {@code done} holds or {@code end}; returns the time it first held, or -1. */
    public long runUntil(long end, List<Arrival> arrivals, BooleanSupplier done) {
        long[] at = {-1};
        afterEvent(r -> {
            if (at[0] < 0 && done.getAsBoolean()) {
                at[0] = clock.millis();
            }
        });
        runUntil(end, arrivals);
        return at[0];
    }

    private void release(Release r) {
        UnitView u = engine.view().unit(r.unit());
        int held = u == null ? 0 : u.allocations().getOrDefault(r.node(), 0);
        if (held > 0) {
            handle(new GrantReleased(r.unit(), r.node(), Math.min(held, r.slots())));
        }
    }

    /** One-slot jobs of {@code cpu} (100 MiB) at {@code priority}, one every {@code everyMillis} from {@code from} to {@code to}. */
    public static List<Arrival> stream(String prefix, long from, long to, long everyMillis, long cpu, int priority,
                                       long runs) {
        List<Arrival> out = new ArrayList<>();
        int i = 0;
        for (long t = from; t < to; t += everyMillis) {
            out.add(new Arrival(t, JobSpec.of(prefix + i++, null,
                    Jobs.unit("u", cpu, 100, 1).priority(priority).build()), runs));
        }
        return out;
    }

    /** Both lists, merged by time (stable: at equal times {@code a} first). */
    public static List<Arrival> merge(List<Arrival> a, List<Arrival> b) {
        List<Arrival> out = new ArrayList<>(a);
        out.addAll(b);
        out.sort(Comparator.comparingLong(Arrival::at));
        return out;
    }
}
