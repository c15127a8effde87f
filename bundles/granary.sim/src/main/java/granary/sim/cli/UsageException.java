package granary.sim.cli;

/** Bad arguments: the message says what and how to fix it; the command line exits with code 2. */
public final class UsageException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
