package granary.launcher;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * Runs piped standard input (a pipe or a file) as console commands, one per line, once the
 * {@code granary:*} commands are there. Results go to {@code out}; a failed command prints
 * {@code Error: <message>} to {@code err} and the next line runs. Blank lines and lines starting
 * with {@code #} are skipped.
 */
final class PipedConsole {

    static final String SCOPE = "granary";

    private final Container container;
    private final boolean strict;
    private final Duration commandWait;
    private final PrintStream out;
    private final PrintStream err;

    PipedConsole(Container container, boolean strict, Duration commandWait, PrintStream out, PrintStream err) {
        this.container = container;
        this.strict = strict;
        this.commandWait = commandWait;
        this.out = out;
        this.err = err;
    }

    /** Runs every line of {@code in}; returns the exit code. */
    int run(InputStream in) throws InterruptedException {
        try {
            container.awaitCommands(SCOPE, commandWait);
        } catch (TimeoutException e) {
            err.println("Error: " + e.getMessage());
            return Launcher.EXIT_STARTUP;
        }
        int failed = 0;
        // Commands get an empty input: they must never read the lines meant for the launcher.
        try (GogoSession session = GogoSession.open(container.context(), new ByteArrayInputStream(new byte[0]), out, err);
             BufferedReader lines = new BufferedReader(new InputStreamReader(in, Charset.defaultCharset()))) {
            String line;
            while ((line = lines.readLine()) != null) {
                String command = line.strip();
                if (command.isEmpty() || command.startsWith("#")) {
                    continue;
                }
                if (!runOne(session, command)) {
                    failed++;
                }
            }
        } catch (IOException e) {
            err.println("Error: reading standard input: " + e.getMessage());
            failed++;
        }
        return strict && failed > 0 ? Launcher.EXIT_FAILED_COMMAND : Launcher.EXIT_OK;
    }

    private boolean runOne(GogoSession session, String command) {
        try {
            String text = session.format(session.execute(command));
            if (text != null && !text.isEmpty()) {
                out.println(text);
            }
            return true;
        } catch (Exception e) {
            err.println("Error: " + GogoSession.message(e));
            return false;
        } finally {
            out.flush();
            err.flush();
        }
    }
}
