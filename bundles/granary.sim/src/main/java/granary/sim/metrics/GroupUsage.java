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
    /**
     * The cause charged when no admission policy says why the group is below its guarantee (the status
     * line {@code below-min <group>} of docs/multi-tenancy.md, "Why a group stays below its min").
     */
    public static final String NO_CAUSE = "not said";

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
    /** Stretches below the guarantee longer than {@link #GUARANTEE_BOUND_MS}, in time order. */
    private final java.util.List<Stretch> longStretches = new java.util.ArrayList<>();
    /** The open stretch's time per cause (ms), in the order the causes first came. */
    private final java.util.Map<String, Long> stretchCauses = new java.util.LinkedHashMap<>();

    /**
     * A stretch below the guarantee with demand: start and length in ms of engine time, the cause it
     * spent most of its time in, and the time per cause ({@code cause s; cause s}, most first).
     */
    public record Stretch(long start, long length, String cause, String causes) {
    }
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
        standing(from, to, belowWithDemand, overMax, null);
    }

    /**
     * The same, with why the group is below its guarantee over {@code [from, to)} as its policies say
     * (null: {@link #NO_CAUSE}): each stretch over the bound is charged to the causes it spent its time in.
     */
    public void standing(long from, long to, boolean belowWithDemand, boolean overMax, String cause) {
        long dt = to - from;
        if (belowWithDemand) {
            belowMinMs += dt;
            belowSince = belowSince < 0 ? from : belowSince;
            belowUntil = to;
            longestBelowMs = Math.max(longestBelowMs, to - belowSince);
            stretchCauses.merge(cause == null ? NO_CAUSE : cause, dt, Long::sum);
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
            longStretches.add(charged(start, end));
        }
        stretchCauses.clear();
    }

    private Stretch charged(long start, long end) {
        java.util.List<java.util.Map.Entry<String, Long>> by = new java.util.ArrayList<>(stretchCauses.entrySet());
        by.sort((a, b) -> Long.compare(b.getValue(), a.getValue()));
        StringBuilder text = new StringBuilder();
        for (java.util.Map.Entry<String, Long> e : by) {
            text.append(text.length() == 0 ? "" : "; ").append(e.getKey()).append(' ')
                    .append(String.format(java.util.Locale.ROOT, "%.0f", e.getValue() / 1000.0)).append(" s");
        }
        return new Stretch(start, end - start, by.isEmpty() ? NO_CAUSE : by.get(0).getKey(), text.toString());
    }

    /** Stretches below the guarantee with demand longer than {@link #GUARANTEE_BOUND_MS} (one still open counts). */
    public long stretchesOverBound() {
        return stretches().size();
    }

    /** Those stretches in time order, each charged to its causes (one still open included). */
    public java.util.List<Stretch> stretches() {
        java.util.List<Stretch> all = new java.util.ArrayList<>(longStretches);
        if (belowSince >= 0 && belowUntil - belowSince > GUARANTEE_BOUND_MS) {
            all.add(charged(belowSince, belowUntil));
        }
        return all;
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
