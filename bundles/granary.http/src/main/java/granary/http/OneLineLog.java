package granary.http;

import granary.api.model.Text;
import java.io.PrintStream;
import java.util.function.LongSupplier;

/**
 * The API's log of what went wrong: one line per event, escaped and cut, no stack trace, and at
 * most {@link #PER_SECOND} lines a second; past that, lines are counted and the count said with
 * the next line written (docs/security.md, "Errors and logs"). A flood of bad requests costs the
 * log a few lines a second, not a disk.
 */
final class OneLineLog {

    static final int PER_SECOND = 5;

    private final PrintStream out;
    private final LongSupplier millis;
    private long second = -1;
    private int written;
    private long dropped;

    OneLineLog(PrintStream out, LongSupplier millis) {
        this.out = out;
        this.millis = millis;
    }

    /** Writes {@code what} (escaped, cut) if this second's lines are not used up; returns whether it did. */
    synchronized boolean log(String what) {
        long now = millis.getAsLong() / 1000;
        if (now != second) {
            second = now;
            written = 0;
        }
        if (written >= PER_SECOND) {
            dropped++;
            return false;
        }
        written++;
        String line = "granary: api: " + Text.escape(what);
        if (dropped > 0) {
            line += " (" + dropped + " more lines like it were not written)";
            dropped = 0;
        }
        out.println(line);
        return true;
    }
}
