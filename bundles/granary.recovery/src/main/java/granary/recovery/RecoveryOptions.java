package granary.recovery;

import java.time.Duration;
import java.util.Objects;

/**
 * How long a master that starts empty listens before it rebuilds (docs/recovery.md, "The window").
 *
 * @param window the longest wait for agents and job masters to report (60 s by default); zero: no
 *               window, the master starts serving at once with nothing to recover
 * @param settle the window closes early once every peer some report names has reported and no
 *               new peer has reported for this long
 * @param keepOfflineOfAbsent keep the offline caps of a job master that did not report within the
 *               window, in its mock job, as for online ones. Off by default, as §12 of the
 *               specification says ("a job master that did not report: its grants are dropped; it gets
 *               the revocation when it returns"): nobody plans into those slots while it is away, and
 *               its tasks may run again anyway. On: its running tasks go on and keep their slots, at
 *               the price of slots held idle until it returns (docs/recovery.md, case 11)
 */
public record RecoveryOptions(Duration window, Duration settle, boolean keepOfflineOfAbsent) {

    /** Options that drop the offline caps of absent job masters (the default). */
    public RecoveryOptions(Duration window, Duration settle) {
        this(window, settle, false);
    }

    public RecoveryOptions {
        Objects.requireNonNull(window, "window");
        Objects.requireNonNull(settle, "settle");
        if (window.isNegative() || settle.isNegative()) {
            throw new IllegalArgumentException("the recovery window and its settle time must not be negative, got "
                    + window + " and " + settle);
        }
    }

    /** A 60 s window that closes 2 s after the last new report once every named peer has reported. */
    public static RecoveryOptions defaults() {
        return new RecoveryOptions(Duration.ofSeconds(60), Duration.ofSeconds(2));
    }

    /** No window: nothing to recover (a master's tests, a brand-new cluster). */
    public static RecoveryOptions none() {
        return new RecoveryOptions(Duration.ZERO, Duration.ZERO);
    }
}
