package granary.console;

/**
 * A console command's refusal, in words. The JLine shell prints a failed command as the exception's
 * {@code toString()}, which for a plain exception starts with its Java class name: this one prints its
 * message only (docs/operations.md, "What the console shows"). Every {@code granary:} command fails
 * with it; the piped console prints the same message after {@code Error: }. Inside a pipe Gogo
 * prints a failed stage as {@code gogo: <simple class name>: <message>}: the class's name is a word
 * for that line ({@code gogo: Refusal: no job x}).
 */
public final class Refusal extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    public Refusal(String message) {
        super(message);
    }

    public Refusal(String message, Throwable cause) {
        super(message, cause);
    }

    /** The refusal {@code e} as a console error: its message, or its kind in words when it has none. */
    public static Refusal of(Throwable e) {
        if (e instanceof Refusal c) {
            return c;
        }
        String m = e.getMessage();
        return new Refusal(m == null || m.isBlank() ? "the command failed without a message (" + words(e) + ")" : m, e);
    }

    private static String words(Throwable e) {
        // "NullPointerException" -> "null pointer exception": a hint for a report, no package name
        return e.getClass().getSimpleName().replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public String toString() {
        return getMessage();
    }
}
