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
    /** A command that changes nothing, run until it answers before the first line of input. */
    static final String PROBE = "status";
    /** grep's colours (match, file name, line number, separator), each set to no style. */
    static final String NO_COLOURS = "mt=:fn=:ln=:se=";
    /** The exit command as a line may type it; the framework stops on a thread of its own after it. */
    static final java.util.regex.Pattern EXIT = java.util.regex.Pattern.compile("(granary:)?exit(\\s+0)?");

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
        long deadline = System.nanoTime() + commandWait.toNanos();
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
            // Gogo takes the session's own output for a terminal: without this, grep would mark its
            // matches with colour escapes in a file or a pipe
            session.put("GREP_COLORS", NO_COLOURS);
            // as the console's profile has it: granary's commands first, then the shell's
            session.put("SCOPE", Launcher.GoshArgs.SCOPE);
            if (!ready(session, deadline)) {
                err.println("Error: the " + SCOPE + ":* commands did not answer within " + commandWait.toSeconds() + " s");
                return Launcher.EXIT_STARTUP;
            }
            String line;
            while ((line = lines.readLine()) != null) {
                String command = line.strip();
                if (command.isEmpty() || command.startsWith("#")) {
                    continue;
                }
                boolean ran = runOne(session, command);
                if (!ran) {
                    failed++;
                }
                if ((ran && EXIT.matcher(command).matches()) || stopping()) {
                    break;   // granary:exit (or stop 0): the lines after it are not run; the launcher stops
                }
            }
        } catch (IOException e) {
            err.println("Error: reading standard input: " + e.getMessage());
            failed++;
        }
        return strict && failed > 0 ? Launcher.EXIT_FAILED_COMMAND : Launcher.EXIT_OK;
    }

    /**
     * Waits until Gogo itself runs {@code granary:status}: a command service can be in the registry
     * a moment before Gogo's tracker has taken it, and DS registers the components one by one.
     */
    private static boolean ready(GogoSession probe, long deadline) throws InterruptedException {
        while (true) {
            try {
                probe.run(SCOPE + ":" + PROBE);
                return true;
            } catch (Exception notYet) {
                if (System.nanoTime() > deadline) {
                    return false;
                }
                Thread.sleep(20);   // polling the framework for a service: no event to wait on from outside it
            }
        }
    }

    /** True once the framework is no longer active: a command stopped it. */
    private boolean stopping() {
        return container.framework().getState() != org.osgi.framework.Bundle.ACTIVE;
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
            if (Boolean.getBoolean("granary.debug")) {
                e.printStackTrace(err);
            }
            return false;
        } finally {
            out.flush();
            err.flush();
        }
    }
}
