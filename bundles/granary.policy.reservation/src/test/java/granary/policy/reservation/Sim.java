package granary.policy.reservation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.Consumer;

import granary.api.model.JobSpec;
import granary.api.model.ManualClock;
import granary.api.model.NodeSpec;
import granary.api.event.Receipt;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.event.ClockTick;
import granary.api.event.GrantReleased;
import granary.api.event.Granted;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.PolicyInstalled;
import granary.policy.reservation.api.ReservationReport;
import granary.api.spi.Policy;
import granary.api.spi.UnitView;
import granary.engine.Engine;
import granary.engine.EngineOptions;

/**
 * A discrete-event run of the real engine (strict mode, manual clock): jobs arrive at given times,
 * every slot granted runs for its job's duration and is then released, and the clock ticks every
 * second as in the live runtime. A tick is one scheduling round.
 */
final class Sim {

    static final long TICK = 1_000;

    /**
     * A job that arrives at {@code at} and whose slots each run {@code runs} ms once granted; or,
     * with {@code cancel}, the cancellation of that job at {@code at} if it is still there.
     */
    record Arrival(long at, JobSpec job, long runs, String cancel) {
        Arrival(long at, JobSpec job, long runs) {
            this(at, job, runs, null);
        }

        static Arrival cancel(long at, String job) {
            return new Arrival(at, null, 0, job);
        }
    }

    private record Release(long at, long seq, UnitId unit, String node, int slots) {
    }

    final ManualClock clock = new ManualClock(0);
    final Engine engine;
    private final Map<String, Long> runs = new HashMap<>();
    private final PriorityQueue<Release> releases = new PriorityQueue<>(
            Comparator.comparingLong(Release::at).thenComparingLong(Release::seq));
    private final List<Consumer<Receipt>> afterEvent = new ArrayList<>();
    private long seq;
    private long nextTick = TICK;
    int rounds;

    Sim(List<String> selection, Policy... policies) {
        engine = new Engine(clock, new EngineOptions(selection, List.of("fifo"), true));
        for (Policy p : policies) {
            engine.handle(new PolicyInstalled(p, "test"));
        }
        engine.subscribe(o -> {
            if (o instanceof Granted g) {
                long d = runs.getOrDefault(g.unit().job(), Long.MAX_VALUE / 4);
                releases.add(new Release(clock.millis() + d, seq++, g.unit(), g.node(), g.slots()));
            }
        });
    }

    Sim nodes(String prefix, String room, int count, long cpu, long mem) {
        for (int i = 0; i < count; i++) {
            handle(new NodeAdded(new NodeSpec(prefix + i, room, Resources.of(cpu, mem))));
        }
        return this;
    }

    /** Runs {@code check} after every event from now on. */
    Sim afterEvent(Consumer<Receipt> check) {
        afterEvent.add(check);
        return this;
    }

    Receipt handle(InputEvent e) {
        Receipt r = engine.handle(e);
        afterEvent.forEach(c -> c.accept(r));
        return r;
    }

    /** Submits now; its slots will run {@code runsMillis} each. */
    Receipt submit(JobSpec job, long runsMillis) {
        runs.put(job.id(), runsMillis);
        return handle(new JobSubmitted(job));
    }

    /** Processes arrivals, releases and ticks in time order until {@code end} (arrivals after it are left). */
    void runUntil(long end, List<Arrival> arrivals) {
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
                    handle(new granary.api.event.JobCancelled(a.cancel()));
                }
            } else {
                nextTick += TICK;
                rounds++;
                handle(new ClockTick());
            }
        }
    }

    /** Runs until {@code done} holds or {@code end}; returns the time it first held, or -1. */
    long runUntil(long end, List<Arrival> arrivals, java.util.function.BooleanSupplier done) {
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

    int granted(String unit) {
        UnitView u = engine.view().unit(UnitId.parse(unit));
        return u == null ? 0 : u.granted();
    }

    ReservationReport report() {
        Policy p = engine.view().policy(ReservationPolicy.NAME);
        return p == null ? null : ((ReservationPolicy) p).reservation(engine.view());
    }

    // ---- workloads ----

    static UnitSpec.Builder unit(String name, long cpu, int desired) {
        return UnitSpec.builder(name).slot(cpu, 100).desired(desired);
    }

    static JobSpec job(String id, UnitSpec u) {
        return JobSpec.of(id, null, u);
    }

    static JobSpec gangJob(String id, UnitSpec... units) {
        return new JobSpec(id, null, null, 0, true, List.of(units));
    }

    /** One-slot jobs of {@code cpu} at {@code priority}, one every {@code everyMillis} from {@code from} to {@code to}. */
    static List<Arrival> stream(String prefix, long from, long to, long everyMillis, long cpu, int priority, long runs) {
        List<Arrival> out = new ArrayList<>();
        int i = 0;
        for (long t = from; t < to; t += everyMillis) {
            out.add(new Arrival(t, job(prefix + i++, unit("u", cpu, 1).priority(priority).build()), runs));
        }
        return out;
    }

    static List<Arrival> merge(List<Arrival> a, List<Arrival> b) {
        List<Arrival> out = new ArrayList<>(a);
        out.addAll(b);
        out.sort(Comparator.comparingLong(Arrival::at));
        return out;
    }
}
