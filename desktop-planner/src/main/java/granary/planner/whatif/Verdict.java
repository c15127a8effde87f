package granary.planner.whatif;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which table did better in a what-if, measure by measure, and by how much (docs/planner.md, "The
 * verdict"): wait-for-resource timeouts, job waits p50 / p90 / p99, utilisation while work waited,
 * per group the time it was below its MinQuota with work waiting, and slots preempted. Plain numbers
 * in and words out, so that it is tested without a replay.
 *
 * @param measures one row per measure, in the order above
 */
public record Verdict(List<Measure> measures) {

    public Verdict {
        measures = List.copyOf(measures);
    }

    /** Which side a measure favours. */
    public enum Better { DRAFT, IN_FORCE, SAME }

    /**
     * One measure of both sides.
     *
     * @param name          what is measured, in words
     * @param unit          its unit ({@code jobs}, {@code s}, {@code %}, {@code slots})
     * @param draft         the draft's value
     * @param inForce       the table in force's value
     * @param lowerIsBetter true for waits, timeouts and the like; false for utilisation
     */
    public record Measure(String name, String unit, double draft, double inForce, boolean lowerIsBetter) {

        /** The draft's value minus the table in force's. */
        public double difference() {
            return draft - inForce;
        }

        public Better better() {
            // a difference below a thousandth of the larger value (or of 1) is none
            double scale = Math.max(1, Math.max(Math.abs(draft), Math.abs(inForce)));
            if (Math.abs(difference()) < 1e-3 * scale) {
                return Better.SAME;
            }
            return (difference() < 0) == lowerIsBetter ? Better.DRAFT : Better.IN_FORCE;
        }

        /** {@code 12 jobs}, {@code 3.5 s}, {@code 71.2 %}. */
        public String format(double v) {
            return number(v) + " " + unit;
        }

        /** {@code +12 jobs (+25 %)}, {@code -3.5 s}, {@code 0}. */
        public String differenceText() {
            double d = difference();
            if (better() == Better.SAME) {
                return "no difference";
            }
            String rel = inForce != 0 && !"%".equals(unit)
                    ? String.format(Locale.ROOT, " (%+.0f %%)", 100 * d / Math.abs(inForce)) : "";
            return (d > 0 ? "+" : "") + number(d) + " " + unit + rel;
        }

        public String betterText() {
            return switch (better()) {
                case DRAFT -> "draft";
                case IN_FORCE -> "in force";
                case SAME -> "same";
            };
        }

        private static String number(double v) {
            return Math.abs(v - Math.rint(v)) < 1e-9 && Math.abs(v) < 1e15
                    ? String.format(Locale.ROOT, "%,d", (long) Math.rint(v))
                    : String.format(Locale.ROOT, "%,.1f", v);
        }
    }

    /** The measures of a what-if's two sides. */
    public static Verdict of(WhatIfResult r) {
        RunSummary d = r.draft();
        RunSummary f = r.inForce();
        List<Measure> m = new ArrayList<>();
        double limitS = d.run().timeouts().thresholdMs() / 1000.0;
        m.add(new Measure("timeouts: jobs that waited more than " + Measure.number(limitS) + " s for resources", "jobs",
                d.timeouts(), f.timeouts(), true));
        m.add(new Measure("job wait p50 (half the jobs waited less)", "s", d.jobWaits().p50() / 1000.0, f.jobWaits().p50() / 1000.0, true));
        m.add(new Measure("job wait p90", "s", d.jobWaits().p90() / 1000.0, f.jobWaits().p90() / 1000.0, true));
        m.add(new Measure("job wait p99", "s", d.jobWaits().p99() / 1000.0, f.jobWaits().p99() / 1000.0, true));
        for (String dim : List.of("cpu", "mem")) {
            Double a = d.run().backlog().utilisation().get(dim);
            Double b = f.run().backlog().utilisation().get(dim);
            if (a != null && b != null) {
                m.add(new Measure((dim.equals("cpu") ? "cpu" : "memory") + " granted while work waited", "%",
                        round1(100 * a), round1(100 * b), false));
            }
        }
        for (String g : r.groups()) {
            GroupSummary a = d.groups().get(g);
            GroupSummary b = f.groups().get(g);
            m.add(new Measure(g + ": time below its MinQuota with work waiting", "s",
                    Math.round(a == null ? 0 : a.belowMinSeconds()), Math.round(b == null ? 0 : b.belowMinSeconds()), true));
        }
        m.add(new Measure("slots preempted (taken back from running work)", "slots",
                d.run().revocations().slots(), f.run().revocations().slots(), true));
        return new Verdict(m);
    }

    private static double round1(double v) {
        return Math.round(v * 10) / 10.0;
    }

    /** How many measures each side wins. */
    public long count(Better b) {
        return measures.stream().filter(x -> x.better() == b).count();
    }

    /**
     * The verdict in words: {@code The draft is better on 4 of 9 measures, the table in force on 2, 3 the
     * same; timeouts: 12 jobs against 40 (-28 jobs, -70 %).}
     */
    public String sentence() {
        long draft = count(Better.DRAFT);
        long inForce = count(Better.IN_FORCE);
        long same = count(Better.SAME);
        String who = draft > inForce ? "The draft is better" : inForce > draft ? "The table in force is better" : "Neither table is better";
        StringBuilder s = new StringBuilder(who).append(": the draft wins ").append(draft).append(" of ")
                .append(measures.size()).append(" measures, the table in force ").append(inForce)
                .append(", ").append(same).append(same == 1 ? " is a tie" : " are ties");
        if (!measures.isEmpty()) {
            Measure t = measures.get(0);
            s.append(". Timeouts: ").append(t.format(t.draft())).append(" with the draft against ")
                    .append(t.format(t.inForce())).append(" in force: ").append(t.differenceText());
        }
        return s.append('.').toString();
    }
}
