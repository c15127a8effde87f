package granary.sim.osgi;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import granary.sim.cli.Runner;

/**
 * The rules of {@code granary:sim} inside the runtime, apart from OSGi: the replay runs on a thread of
 * its own (low priority, not the console's), one at a time, within a wall-clock limit and a limit on
 * the units it replays; {@code --cancel}, or an interrupt of the waiting console thread (Ctrl-C),
 * stops it. The console thread waits for the result, so a finished replay prints as before.
 */
final class OneReplay {

    /** Runs the simulator's arguments with a limit on units; {@code option} names that limit in messages. */
    @FunctionalInterface
    interface Body {
        Runner.Outcome run(List<String> args, long maxUnits, String option);
    }

    static final long DEFAULT_WALL_LIMIT_S = 600;
    static final long MAX_WALL_LIMIT_S = 86_400;
    static final long DEFAULT_MAX_UNITS = 1_000_000;
    static final long MAX_MAX_UNITS = 10_000_000;
    /** How long a stopped replay may take to notice it was interrupted before the command returns anyway. */
    static final long STOP_WAIT_MS = 10_000;

    static final String OPTIONS = """
            Inside the runtime also:
              --wall-limit-seconds S     stop the replay after S seconds of wall-clock time (default 600, at most 86400)
              --max-units N              refuse a workload of more than N units (default 1,000,000, at most 10,000,000)
              --cancel                   stop the replay that is running (Ctrl-C on its console does too)
            """;

    private record Running(FutureTask<Runner.Outcome> task, Instant started, String args) {
    }

    private final Body body;
    private final AtomicReference<Running> running = new AtomicReference<>();

    OneReplay(Body body) {
        this.body = body;
    }

    /** Runs {@code granary:sim ARGS}: the text to print, or an IllegalArgumentException with the error. */
    String sim(List<String> args) {
        if (args.contains("--cancel")) {
            if (args.size() != 1) {
                throw new IllegalArgumentException("granary:sim --cancel takes no other option, got " + String.join(" ", args));
            }
            return cancel();
        }
        List<String> rest = new ArrayList<>();
        long wallLimitS = DEFAULT_WALL_LIMIT_S;
        long maxUnits = DEFAULT_MAX_UNITS;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--wall-limit-seconds") || a.equals("--max-units")) {
                if (i + 1 >= args.size()) {
                    throw new IllegalArgumentException(a + ": a value is missing");
                }
                String v = args.get(++i);
                if (a.equals("--wall-limit-seconds")) {
                    wallLimitS = number(a, v, 1, MAX_WALL_LIMIT_S);
                } else {
                    maxUnits = number(a, v, 1, MAX_MAX_UNITS);
                }
            } else {
                rest.add(a);
            }
        }
        if (rest.contains("--help")) {
            Runner.Outcome o = body.run(rest, maxUnits, "--max-units");
            return o.text().replace("Usage: java -jar granary-sim.jar", "Usage: granary:sim") + OPTIONS;
        }
        String label = String.join(" ", rest);
        long units = maxUnits;
        FutureTask<Runner.Outcome> task = new FutureTask<>(() -> body.run(rest, units, "--max-units"));
        Running[] self = new Running[1];
        Thread worker = new Thread(() -> {
            try {
                task.run();
            } finally {
                running.compareAndSet(self[0], null);
            }
        }, "granary-sim-replay");
        worker.setDaemon(true);
        worker.setPriority(Thread.MIN_PRIORITY);   // the live scheduler comes first
        self[0] = new Running(task, Instant.now().truncatedTo(ChronoUnit.SECONDS), label);
        Running other = running.compareAndExchange(null, self[0]);
        if (other != null) {
            throw new IllegalArgumentException("granary:sim: a replay is already running (started " + other.started()
                    + ": " + other.args() + "); one at a time: wait for it, or stop it with granary:sim --cancel");
        }
        worker.start();
        Runner.Outcome o;
        try {
            o = task.get(wallLimitS, TimeUnit.SECONDS);
            join(worker);   // it frees the slot on its way out: the next command may start once this one returned
        } catch (TimeoutException e) {
            stop(task, worker);
            throw new IllegalArgumentException("granary:sim: stopped after the wall-clock limit of " + wallLimitS
                    + " s (--wall-limit-seconds); replay part of the trace (--max-jobs, --until-seconds) or raise the limit");
        } catch (InterruptedException e) {
            stop(task, worker);
            Thread.currentThread().interrupt();
            throw new IllegalArgumentException("granary:sim: cancelled (the console was interrupted)");
        } catch (CancellationException e) {
            join(worker);
            throw new IllegalArgumentException("granary:sim: cancelled by granary:sim --cancel");
        } catch (ExecutionException e) {
            join(worker);
            Throwable c = e.getCause();
            if (c instanceof RuntimeException re) {
                throw re;
            }
            if (c instanceof Error err) {
                throw err;
            }
            throw new IllegalStateException(c);
        }
        if (o.exit() != 0) {
            throw new IllegalArgumentException(o.text());
        }
        return o.text().replace("Usage: java -jar granary-sim.jar", "Usage: granary:sim");
    }

    private String cancel() {
        Running r = running.get();
        if (r == null) {
            throw new IllegalArgumentException("granary:sim --cancel: no replay is running");
        }
        r.task().cancel(true);
        return "cancelled the replay started " + r.started() + ": " + r.args() + "\n";
    }

    /** True while a replay runs (tests). */
    boolean busy() {
        return running.get() != null;
    }

    private static void stop(FutureTask<?> task, Thread worker) {
        task.cancel(true);
        join(worker);
    }

    private static void join(Thread worker) {
        try {
            worker.join(STOP_WAIT_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static long number(String option, String v, long min, long max) {
        try {
            long n = Long.parseLong(v.replace("_", "").replace(",", ""));
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + ": must be a whole number within " + String.format(Locale.ROOT, "%,d..%,d", min, max)
                + ", got '" + v + "'");
    }
}
