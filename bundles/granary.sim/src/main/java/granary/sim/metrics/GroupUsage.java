package granary.sim.metrics;

import granary.api.model.Resources;

/**
 * What one group holds over time, integrated exactly (usage changes only at grants, revocations
 * and releases): slot-seconds, cpu core-seconds and memory GiB-seconds — the quantities a billing
 * policy charges (docs/multi-tenancy.md, "The quota table") — and its peak.
 */
public final class GroupUsage {

    /** How long a group with demand may stay below its min (docs/multi-tenancy.md, "Choices and their defaults"). */
    public static final long GUARANTEE_BOUND_MS = 20_000;
    /** How many of the longest stretches over the bound are kept. */
    private static final int KEPT_STRETCHES = 10;

    private long slots;
    private Resources held = Resources.ZERO;
    private long last = -1;
    private double slotMs;
    private double cpuMs;
    private double memMs;
    private long peakSlots;
    private long jobs;
    private long timeouts;
    private long revoked;
    private double lostMs;
    private long belowMinMs;
    private long belowSince = -1;
    private long longestBelowMs;
    private long belowUntil = -1;
    /** Stretches below the guarantee longer than {@link #GUARANTEE_BOUND_MS}: {start, length} ms, the longest few. */
    private final java.util.List<long[]> longStretches = new java.util.ArrayList<>();
    private long longStretchCount;
    private long overMaxMs;

    /** Records a change of {@code dSlots} slots holding {@code dRes} at {@code now}. */
    public void change(long now, long dSlots, Resources dRes) {
        integrate(now);
        slots += dSlots;
        held = held.plus(dRes);
        peakSlots = Math.max(peakSlots, slots);
    }

    /** Brings the integrals up to {@code now}. */
    public void integrate(long now) {
        if (last >= 0 && now > last) {
            long dt = now - last;
            slotMs += (double) slots * dt;
            cpuMs += (double) held.cpu() * dt;
            memMs += (double) held.memMb() * dt;
        }
        last = Math.max(last, now);
    }

    /**
     * Slots of the group taken back (preemption, cancellation by the master), and the slot-milliseconds
     * their tasks had run: work lost, to be run again.
     */
    public void revoked(long slots, double lostSlotMs) {
        revoked += slots;
        lostMs += lostSlotMs;
    }

    /**
     * The group's standing over {@code [from, to)} as its admission policies bound it: below its
     * guarantee while it had demand, and above its limit.
     */
    public void standing(long from, long to, boolean belowWithDemand, boolean overMax) {
        long dt = to - from;
        if (belowWithDemand) {
            belowMinMs += dt;
            belowSince = belowSince < 0 ? from : belowSince;
            belowUntil = to;
            longestBelowMs = Math.max(longestBelowMs, to - belowSince);
        } else if (belowSince >= 0) {
            stretchEnded(belowSince, belowUntil);
            belowSince = -1;
        }
        if (overMax) {
            overMaxMs += dt;
        }
    }

    public long revokedSlots() {
        return revoked;
    }

    /** Slot-seconds the group's revoked tasks had run before they were stopped. */
    public double lostSlotSeconds() {
        return lostMs / 1000.0;
    }

    public double belowMinSeconds() {
        return belowMinMs / 1000.0;
    }

    public double longestBelowMinSeconds() {
        return longestBelowMs / 1000.0;
    }

    private void stretchEnded(long start, long end) {
        if (end - start > GUARANTEE_BOUND_MS) {
            longStretchCount++;
            longStretches.add(new long[] {start, end - start});
            longStretches.sort((a, b) -> Long.compare(b[1], a[1]));
            if (longStretches.size() > KEPT_STRETCHES) {
                longStretches.remove(KEPT_STRETCHES);
            }
        }
    }

    /** Stretches below the guarantee with demand longer than {@link #GUARANTEE_BOUND_MS} (one still open counts). */
    public long stretchesOverBound() {
        return longStretchCount + (belowSince >= 0 && belowUntil - belowSince > GUARANTEE_BOUND_MS ? 1 : 0);
    }

    /** The longest of those, longest first: {start, length} in ms of engine time. */
    public java.util.List<long[]> longestStretches() {
        java.util.List<long[]> all = new java.util.ArrayList<>(longStretches);
        if (belowSince >= 0 && belowUntil - belowSince > GUARANTEE_BOUND_MS) {
            all.add(new long[] {belowSince, belowUntil - belowSince});
            all.sort((a, b) -> Long.compare(b[1], a[1]));
        }
        return all.size() > KEPT_STRETCHES ? all.subList(0, KEPT_STRETCHES) : all;
    }

    public double overMaxSeconds() {
        return overMaxMs / 1000.0;
    }

    public void job(boolean timedOut) {
        jobs++;
        if (timedOut) {
            timeouts++;
        }
    }

    public double slotSeconds() {
        return slotMs / 1000.0;
    }

    public double cpuCoreSeconds() {
        return cpuMs / 100.0 / 1000.0;
    }

    public double memGibSeconds() {
        return memMs / 1024.0 / 1000.0;
    }

    public long peakSlots() {
        return peakSlots;
    }

    public long slots() {
        return slots;
    }

    public long jobs() {
        return jobs;
    }

    public long timeouts() {
        return timeouts;
    }
}
