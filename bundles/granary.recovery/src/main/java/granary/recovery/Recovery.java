package granary.recovery;

/**
 * The recovery engine as the master uses it: opens a window for a master that starts empty. The
 * runtime provides it as a service ({@code granary.recovery.osgi}); a master outside OSGi makes one
 * with {@link #of}.
 */
public interface Recovery {

    RecoveryOptions options();

    /** A new window opening at {@code now} (ms). */
    default RecoveryWindow open(long now) {
        return new RecoveryWindow(options(), now);
    }

    static Recovery of(RecoveryOptions options) {
        return () -> options;
    }
}
