package granary.conformance;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seeded random fault schedules (docs/recovery.md, "The conformance kit"): on the standard cluster of
 * {@link Cases}, with a lossy wire (messages dropped, duplicated, delayed and so reordered), faults
 * of every role at random moments — master failovers, job master and agent failovers and
 * timeouts, often overlapping — then the world settles, the batches finish and the same checks as
 * for the named cases apply. The same seed gives the same run; a failing schedule is shrunk to the
 * fewest faults that still fail.
 */
public final class Schedules {

    /** How long the faults are spread over, after the cluster is running. */
    static final long HORIZON = 30_000;

    private Schedules() {
    }

    /** One fault: {@code kind} on {@code target} at {@code at} ms after the start; {@code millis} for a timeout. */
    public record Fault(long at, String kind, String target, long millis) {
        @Override
        public String toString() {
            return "t+" + at + "ms " + kind + (target.isEmpty() ? "" : " " + target) + (millis > 0 ? " " + millis + "ms" : "");
        }

        void inject(World w) {
            switch (kind) {
                case "master-failover" -> w.restartMaster();
                case "agent-failover" -> w.restartAgent(target);
                case "job-master-failover" -> w.restartJobMaster(target);
                case "timeout" -> w.cut(target, millis);
                default -> throw new IllegalArgumentException("unknown fault " + kind);
            }
        }
    }

    /** The faults of schedule {@code seed}: 2 to 8 of them. */
    public static List<Fault> generate(long seed) {
        Random r = new Random(seed * 0x9E3779B97F4A7C15L + 7);
        int n = 2 + r.nextInt(7);
        List<Fault> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long at = r.nextInt((int) HORIZON / 50) * 50L;
            int what = r.nextInt(10);
            String agent = "n" + (1 + r.nextInt(4));
            String jm = "jm" + (1 + r.nextInt(2));
            long millis = (1 + r.nextInt(12)) * 1_000L;
            out.add(switch (what) {
                case 0, 1 -> new Fault(at, "master-failover", "", 0);
                case 2, 3 -> new Fault(at, "agent-failover", agent, 0);
                case 4, 5 -> new Fault(at, "timeout", agent, millis);
                case 6, 7 -> new Fault(at, "job-master-failover", jm, 0);
                default -> new Fault(at, "timeout", jm, millis);
            });
        }
        out.sort(Comparator.comparingLong(Fault::at));
        return out;
    }

    /** The wire's faults during a schedule. */
    static final Faults LOSSY = new Faults(0.03, 0.02, 150);

    /** Runs schedule {@code seed} with its generated faults. */
    public static Cases.Outcome run(long seed) {
        return run(seed, generate(seed));
    }

    /** Runs {@code faults} on the standard cluster with wire seed {@code seed}. */
    public static Cases.Outcome run(long seed, List<Fault> faults) {
        try (World w = Cases.cluster(seed)) {
            Map<String, List<String>> online = w.onlineWorkers();
            w.faults(LOSSY);
            long start = w.now();
            for (Fault f : faults) {
                w.run(start + f.at() - w.now());
                f.inject(w);
            }
            w.run(start + HORIZON - w.now());
            return Cases.finish(w, "seed " + seed, "random schedule", faults.toString(), online);
        }
    }

    /**
     * The fewest faults of {@code faults} that still fail with {@code seed}: each fault is dropped in
     * turn and stays dropped if the run still fails. Returns the reduced list (the input if it passes).
     */
    public static List<Fault> shrink(long seed, List<Fault> faults) {
        List<Fault> current = new ArrayList<>(faults);
        if (run(seed, current).passed()) {
            return current;
        }
        for (int i = 0; i < current.size(); ) {
            List<Fault> fewer = new ArrayList<>(current);
            fewer.remove(i);
            if (!run(seed, fewer).passed()) {
                current = fewer;
            } else {
                i++;
            }
        }
        return current;
    }
}
