package granary.agent;

/** A command-line option is missing or malformed; the message names the option and its valid form (exit 2). */
public final class UsageException extends Exception {

    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
