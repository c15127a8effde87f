package granary.sim.run;

/**
 * A replay stopped before its end because its thread was interrupted (the console's Ctrl-C,
 * {@code granary:sim --cancel}, or the command's wall-clock limit). The interrupt flag is set again
 * when this is thrown, so the caller still sees it.
 */
public final class ReplayCancelledException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ReplayCancelledException(String message) {
        super(message);
    }
}
