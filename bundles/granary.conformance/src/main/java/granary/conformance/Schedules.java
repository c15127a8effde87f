package granary.conformance;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Seeded random fault schedules (docs/recovery.md, "The conformance kit"): on the standard cluster of
 * {@link Cases}, with a lossy wire (messages dropped, duplicated, delayed and so reordered), faults
 * of every role at random moments — the master failing over, away for a while, restarted with
 * another secret, or leaving a gap with no leader; agents and job masters failing over, cut off or
 * paused; checkpoints torn, flipped or lost, run records lost, disks refusing writes — often
 * overlapping; then the world settles, the batches finish and the same checks as for the named cases
 * apply. The same seed gives the same run; a failing schedule is shrunk to the fewest faults that
 * still fail.
 */
public final class Schedules {

    /** How long the faults are spread over, after the cluster is running. */
    static final long HORIZON = 30_000;

    private Schedules() {
    }

    /** One fault: {@code kind} on {@code target} at {@code at} ms after the start; {@code millis} for one that lasts. */
    public record Fault(long at, String kind, String target, long millis) {
        @Override
        public String toString() {
            return "t+" + at + "ms " + kind + (target.isEmpty() ? "" : " " + target) + (millis > 0 ? " " + millis + "ms" : "");
        }

        void inject(World w) {
            switch (kind) {
                case "master-failover" -> w.restartMaster();
                case "master-away" -> w.masterOutage(millis);
                case "master-other-secret" -> w.masterWithOtherSecret(millis);
                case "no-leader" -> w.takeover(millis);
                case "agent-failover" -> w.restartAgent(target);
                case "agent-failover-torn" -> {
                    w.damageCheckpoint(target, List.of("tear", "flip", "lose").get((int) (millis % 3)));
                    w.restartAgent(target);
                }
                case "agent-failover-lost-records" -> {
                    w.damageRunRecords(target, millis % 2 == 0 ? "tear" : "lose");
                    w.restartAgent(target);
                }
                case "disk-full" -> w.diskFull(target, millis);
                case "job-master-failover" -> w.restartJobMaster(target);
                case "timeout" -> w.cut(target, millis);
                case "pause" -> w.pause(target, millis);
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
            int what = r.nextInt(20);
            String agent = "n" + (1 + r.nextInt(4));
            String jm = "jm" + (1 + r.nextInt(3));
            long millis = (1 + r.nextInt(12)) * 1_000L;
            out.add(switch (what) {
                case 0, 1, 2 -> new Fault(at, "master-failover", "", 0);
                case 3 -> new Fault(at, "master-away", "", millis);
                case 4 -> new Fault(at, "master-other-secret", "", millis);
                case 5 -> new Fault(at, "no-leader", "", millis);
                case 6, 7 -> new Fault(at, "agent-failover", agent, 0);
                case 8 -> new Fault(at, "agent-failover-torn", agent, millis);
                case 9 -> new Fault(at, "agent-failover-lost-records", agent, millis);
                case 10 -> new Fault(at, "disk-full", agent, millis);
                case 11, 12 -> new Fault(at, "timeout", agent, millis);
                case 13 -> new Fault(at, "pause", agent, millis);
                case 14, 15 -> new Fault(at, "job-master-failover", jm, 0);
                case 16, 17 -> new Fault(at, "timeout", jm, millis);
                default -> new Fault(at, "pause", jm, millis);
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
            try {
                Map<String, List<Long>> services = Invariants.services(w);
                w.faults(LOSSY);
                long start = w.now();
                for (Fault f : faults) {
                    w.run(start + f.at() - w.now());
                    f.inject(w);
                }
                w.run(start + HORIZON - w.now());
                return Cases.finish(w, "seed " + seed, "random schedule", faults.toString(), services);
            } catch (RuntimeException ex) {
                // a failure of the world or of a role it hosts is this schedule's violation, not the end of the run
                StackTraceElement at = ex.getStackTrace().length == 0 ? null : ex.getStackTrace()[0];
                return new Cases.Outcome("seed " + seed, "random schedule", faults.toString(),
                        List.of("internal error at t=" + w.now() + "ms: " + ex + (at == null ? "" : " at " + at)), w.log(),
                        Map.of("jobMasterLaunches", 0L, "fencedJobMasters", 0L));
            }
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
