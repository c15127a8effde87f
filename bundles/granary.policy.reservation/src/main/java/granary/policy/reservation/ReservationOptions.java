package granary.policy.reservation;

/**
 * Settings of the reservation policy.
 *
 * @param thresholdMillis a job becomes a candidate target once it has starved (waited without getting a
 *                        new slot) this long. Default 60 s:
 *                        docs/policies.md, "submitwindow" counts a wait over 10 s as a wait-for-resource timeout, so ordinary
 *                        queueing resolves well within a minute; a job still waiting after six such
 *                        marks is being passed over, not queued. Lower it and reservations (whose
 *                        locked nodes stand partly idle while they drain) come for ordinary waits;
 *                        raise it and a starving job waits longer before it gets help.
 * @param mode            how the node group is chosen (spec first by default)
 * @param timeoutMillis   a reservation not fulfilled after this long is released, and its target may
 *                        be elected again only after waiting the threshold once more; 0 = never.
 *                        Default 10 minutes: the reservation is non-preemptive, so it must outlast the
 *                        batch work on the locked nodes (minutes), but nodes held by work that does not
 *                        end (services) must not stand locked forever.
 */
public record ReservationOptions(long thresholdMillis, Mode mode, long timeoutMillis) {

    public static final long DEFAULT_THRESHOLD_MILLIS = 60_000;
    public static final long DEFAULT_TIMEOUT_MILLIS = 600_000;
    public static final ReservationOptions DEFAULTS =
            new ReservationOptions(DEFAULT_THRESHOLD_MILLIS, Mode.SPEC_FIRST, DEFAULT_TIMEOUT_MILLIS);

    public ReservationOptions {
        if (thresholdMillis < 0) {
            throw new IllegalArgumentException("reservation: thresholdMillis must be 0 or more, got " + thresholdMillis);
        }
        if (timeoutMillis < 0) {
            throw new IllegalArgumentException("reservation: timeoutMillis must be 0 (never) or more, got " + timeoutMillis);
        }
        if (mode == null) {
            throw new IllegalArgumentException("reservation: mode is required, one of SPEC_FIRST, IDLE_FIRST");
        }
    }

    public ReservationOptions withMode(Mode m) {
        return new ReservationOptions(thresholdMillis, m, timeoutMillis);
    }

    public ReservationOptions withThreshold(long ms) {
        return new ReservationOptions(ms, mode, timeoutMillis);
    }

    public ReservationOptions withTimeout(long ms) {
        return new ReservationOptions(thresholdMillis, mode, ms);
    }
}
