package granary.sim.run;

import granary.sim.trace.TraceLimits;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import granary.api.spi.Admission;
import granary.api.spi.GroupBounds;
import granary.api.spi.GroupView;

import granary.api.model.Resources;
import granary.api.spi.EngineView;
import granary.api.spi.PolicyDeclaration;
import granary.sim.metrics.Fragmentation;
import granary.sim.metrics.GroupUsage;
import granary.sim.metrics.SecondsHistogram;
import granary.sim.metrics.TimeSeries;

/**
 * The metrics of one replay as it runs: what waits (units, slots, slot shapes), utilisation
 * integrated exactly over simulated time, per-group usage, slot waits, revocations, and the time
 * series sampled every {@code sampleMs} — its own and those of the policies' sampled reports (state
 * between two events does not change, so a sample taken before the next event is exact).
 */
final class Recorder {

    private final EngineView view;
    private final long t0;
    private long sampleMs;
    private long maxSamples = TraceLimits.MAX_SAMPLES;
    private long sampleBudget = TraceLimits.MAX_SAMPLES / 2;
    private long widenedAt = -1;
    private long stoppedAt = -1;
    private long lastSampleMs;
    private final long timeoutMs;
    private final String[] dims;
    private final Resources capacity;
    private final double[] integral;
    private double[] integralAtSample;
    private Resources used = Resources.ZERO;
    private long last;
    private long nextSample;
    private long lastSample;

    private final Map<Resources, Integer> waitingShapes = new HashMap<>();
    private List<Resources> minimalShapes = List.of();
    private boolean shapesChanged;
    long waitingUnits;
    long waitingSlots;
    long runningSlots;

    final Map<String, GroupUsage> groups = new TreeMap<>();
    final SecondsHistogram slotWaits = new SecondsHistogram();
    long revokedSlots;
    double lostSlotMs;
    long slotGrants;
    long unitTimeoutsSoFar;
    long jobsSubmitted;

    /** Resources granted integrated over the time something waited, and that time (ms). */
    private final double[] backlogIntegral;
    private long backlogMs;
    private final List<Admission> admissions = new ArrayList<>();
    private final double[] strandedSum;
    private double strandedOfFreeSum;
    private long samples;
    final TimeSeries series;
    final ReportSampler reports;

    Recorder(EngineView view, long t0, long sampleMs, long timeoutMs, Map<String, PolicyDeclaration> declarations) {
        this.view = view;
        this.t0 = t0;
        this.sampleMs = sampleMs;
        this.timeoutMs = timeoutMs;
        this.capacity = view.cluster().capacity();
        List<String> d = new ArrayList<>(List.of("cpu", "mem"));
        capacity.extended().keySet().forEach(d::add);
        this.dims = d.toArray(new String[0]);
        this.integral = new double[dims.length];
        this.integralAtSample = new double[dims.length];
        this.strandedSum = new double[dims.length];
        this.backlogIntegral = new double[dims.length];
        this.last = t0;
        this.lastSample = t0;
        this.nextSample = t0 + sampleMs;
        List<String> header = new ArrayList<>(List.of("time_s"));
        for (String x : dims) {
            header.add(x + "_util");
        }
        header.addAll(List.of("running_slots", "waiting_units", "waiting_slots"));
        for (String x : dims) {
            header.add("stranded_" + x + "_share");
        }
        header.addAll(List.of("jobs_submitted", "unit_timeouts_so_far"));
        this.series = new TimeSeries(header);
        this.reports = new ReportSampler(view, declarations, d);
    }

    String[] dims() {
        return dims;
    }

    Resources capacity() {
        return capacity;
    }

    // ---- what waits ----

    /** Call with the unit's desire before and after a change. */
    void desireChanged(UnitTrack u, int before, int after) {
        waitingSlots += after - before;
        if (before > 0 == after > 0) {
            return;
        }
        waitingUnits += after > 0 ? 1 : -1;
        waitingShapes.merge(u.unit.spec().slot(), after > 0 ? 1 : -1, (a, b) -> a + b == 0 ? null : a + b);
        shapesChanged = true;
    }

    // ---- grants ----

    void granted(UnitTrack u, int k, long now) {
        slotGrants += k;
        runningSlots += k;
        if (u.firstGrantAt < 0) {
            u.firstGrantAt = now;
            if (now - u.requestedAt > timeoutMs) {
                unitTimeoutsSoFar++;
            }
        }
        int left = k;
        while (left > 0 && !u.demand.isEmpty()) {
            long[] d = u.demand.peekFirst();
            int take = (int) Math.min(left, d[1]);
            slotWaits.add(now - d[0], take);
            d[1] -= take;
            left -= take;
            if (d[1] == 0) {
                u.demand.pollFirst();
            }
        }
        group(u).change(now, k, u.unit.spec().slot().times(k));
    }

    void revoked(UnitTrack u, int k, double lostMs, long now) {
        revokedSlots += k;
        group(u).revoked(k, lostMs);
        lostSlotMs += lostMs;
        runningSlots -= k;
        u.demand.addLast(new long[] {now, k});
        group(u).change(now, -k, Resources.ZERO.minus(u.unit.spec().slot().times(k)));
    }

    void released(UnitTrack u, int k, long now) {
        runningSlots -= k;
        group(u).change(now, -k, Resources.ZERO.minus(u.unit.spec().slot().times(k)));
    }

    GroupUsage group(UnitTrack u) {
        return groups.computeIfAbsent(u.job.group, g -> new GroupUsage());
    }

    // ---- time ----

    /** The engine's state changed: read what is granted now. */
    void refresh() {
        used = view.cluster().granted();
    }

    /** Moves to {@code t}: integrates utilisation and takes every sample due on the way. */
    void advance(long t) {
        while (sampleMs > 0 && nextSample <= t) {
            if (samples >= maxSamples) {
                stoppedAt = nextSample;
                lastSampleMs = sampleMs;
                sampleMs = 0;   // no budget left: no more samples
                break;
            }
            if (samples >= sampleBudget) {
                // longer than planned (e.g. a backlog draining): a quarter as many samples per second with half the
                // budget left, so each step covers twice the time of the one before
                sampleMs *= 4;
                sampleBudget += Math.max(1, (maxSamples - sampleBudget) / 2);
                widenedAt = widenedAt < 0 ? nextSample : widenedAt;
            }
            integrate(nextSample);
            sample(nextSample);
            nextSample += sampleMs;
        }
        integrate(t);
    }

    /** Caps the samples of this run (tests; {@link TraceLimits#MAX_SAMPLES} by default). */
    void maxSamples(long n) {
        maxSamples = n;
        sampleBudget = Math.max(1, n / 2);
    }

    long samples() {
        return samples;
    }

    /** What the sample cap did, for the run's notes; empty if nothing. */
    List<String> sampleNotes() {
        List<String> out = new ArrayList<>();
        if (widenedAt >= 0) {
            out.add("time series: the run outlasted its planned samples at t=" + (widenedAt - t0) / 1000 + "s; the interval was "
                    + "made 4 times as long each time half the remaining budget of " + maxSamples + " samples was used, "
                    + "last " + (sampleMs > 0 ? sampleMs : lastSampleMs) / 1000.0 + " s");
        }
        if (stoppedAt >= 0) {
            out.add("time series: stopped at t=" + (stoppedAt - t0) / 1000 + "s after " + maxSamples + " samples (the cap)");
        }
        return out;
    }

    private void integrate(long t) {
        if (t > last) {
            long dt = t - last;
            for (int i = 0; i < dims.length; i++) {
                integral[i] += (double) used.get(dims[i]) * dt;
                if (waitingSlots > 0) {
                    backlogIntegral[i] += (double) used.get(dims[i]) * dt;
                }
            }
            if (waitingSlots > 0) {
                backlogMs += dt;
            }
            standings(last, t);
            last = t;
        }
    }

    /** The admission policies whose group bounds the run measures against (none named: whichever are installed). */
    void admissions(List<Admission> policies) {
        admissions.clear();
        admissions.addAll(policies);
    }

    /**
     * Why groups are below their guarantee, by group, as the admission policies say in their status
     * lines {@code below-min <group>} (docs/multi-tenancy.md, "Why a group stays below its min").
     */
    private Map<String, String> belowMinCauses() {
        Map<String, String> causes = new HashMap<>();
        for (Admission a : admissions) {
            a.status().forEach((k, v) -> {
                if (k.startsWith(BELOW_MIN)) {
                    causes.merge(k.substring(BELOW_MIN.length()), a.name() + ": " + v, (x, y) -> x + ", " + y);
                }
            });
        }
        return causes;
    }

    /** The prefix of a status line saying why a group is below its guarantee. */
    static final String BELOW_MIN = "below-min ";

    /** Below the guarantee with demand, and above the limit, per group over {@code [from, to)}. */
    private void standings(long from, long to) {
        if (admissions.isEmpty()) {
            return;
        }
        Map<String, String> said = null;
        for (GroupView g : view.groups()) {
            boolean below = false;
            boolean over = false;
            for (Admission a : admissions) {
                GroupBounds b = a.bounds(g, view);
                if (b != null) {
                    below |= g.waitingUnits() > 0 && b.below(g);
                    over |= b.over(g) > 0;
                }
            }
            String cause = null;
            if (below) {
                said = said == null ? belowMinCauses() : said;
                cause = said.get(g.name());
            }
            if (below || over || groups.containsKey(g.name())) {
                groups.computeIfAbsent(g.name(), n -> new GroupUsage()).standing(from, to, below, over, cause);
            }
        }
    }

    private void sample(long t) {
        double dt = t - lastSample;
        List<Object> row = new ArrayList<>();
        row.add((t - t0) / 1000);
        for (int i = 0; i < dims.length; i++) {
            row.add(share(integral[i] - integralAtSample[i], capacity.get(dims[i]) * dt));
        }
        row.add(runningSlots);
        row.add(waitingUnits);
        row.add(waitingSlots);
        Resources stranded = Fragmentation.stranded(view.cluster().nodes(), shapes());
        Resources free = capacity.minus(used);
        for (int i = 0; i < dims.length; i++) {
            double s = share(stranded.get(dims[i]), capacity.get(dims[i]));
            strandedSum[i] += s;
            row.add(s);
        }
        strandedOfFreeSum += share(stranded.get("cpu"), free.get("cpu"));
        row.add(jobsSubmitted);
        row.add(unitTimeoutsSoFar);
        series.add(row.toArray());
        samples++;
        integralAtSample = integral.clone();
        lastSample = t;
        reports.sample((t - t0) / 1000);
    }

    private List<Resources> shapes() {
        if (shapesChanged) {
            minimalShapes = Fragmentation.minimal(waitingShapes.keySet());
            shapesChanged = false;
        }
        return minimalShapes;
    }

    private static double share(double part, double whole) {
        return whole <= 0 ? 0 : part / whole;
    }

    // ---- totals ----

    /** Mean utilisation per resource from t0 to {@code end}. */
    Map<String, Double> utilisation(long end) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (int i = 0; i < dims.length; i++) {
            m.put(dims[i], share(integral[i], (double) capacity.get(dims[i]) * (end - t0)));
        }
        return m;
    }

    /** Mean utilisation per resource over the time something waited (NaN if nothing ever waited). */
    Map<String, Double> backlogUtilisation() {
        Map<String, Double> m = new LinkedHashMap<>();
        for (int i = 0; i < dims.length; i++) {
            m.put(dims[i], backlogMs == 0 ? Double.NaN : backlogIntegral[i] / ((double) capacity.get(dims[i]) * backlogMs));
        }
        return m;
    }

    double backlogSeconds() {
        return backlogMs / 1000.0;
    }

    /** Mean stranded share of capacity per resource over the samples. */
    Map<String, Double> stranded() {
        Map<String, Double> m = new LinkedHashMap<>();
        for (int i = 0; i < dims.length; i++) {
            m.put(dims[i], samples == 0 ? 0 : strandedSum[i] / samples);
        }
        return m;
    }

    double strandedOfFree() {
        return samples == 0 ? 0 : strandedOfFreeSum / samples;
    }

    void finish(long end) {
        advance(end);
        groups.values().forEach(g -> g.integrate(end));
    }
}
