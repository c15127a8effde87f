package granary.launcher;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The launcher's command line.
 *
 * @param demo        run the embedded demo cluster (Config Admin PID {@code granary.demo}, {@code enabled})
 * @param strict      piped input: a failed command makes the exit code 1
 * @param mode        console mode; AUTO = interactive when standard input and output are a terminal
 * @param commandWait piped input: how long to wait for the {@code granary:*} commands to appear
 * @param help        print the usage and exit
 * @param config      Config Admin settings given with {@code --config}: PID → property → value
 */
public record Options(boolean demo, boolean strict, Mode mode, Duration commandWait, boolean help,
                      Map<String, Map<String, Object>> config) {

    public Options {
        config = Map.copyOf(config);
    }

    /** How the console reads standard input. */
    public enum Mode {
        /** Interactive when {@code System.console()} exists, else piped. */
        AUTO,
        /** The Gogo shell owns the terminal; the runtime ends when the shell stops the framework. */
        INTERACTIVE,
        /** The launcher runs each input line as a command and stops the runtime at end of input. */
        PIPED
    }

    /** System property with the default of {@code --demo}. */
    public static final String DEMO_PROPERTY = "granary.demo";

    public static final String USAGE = String.join(System.lineSeparator(),
            "Usage: java -jar granary-standalone.jar [options]",
            "  --demo=true|false  run the embedded demo cluster (default true; system property granary.demo)",
            "  --strict           piped input: exit with code 1 if any command failed",
            "  --interactive      use the Gogo shell even without a terminal",
            "  --piped            run standard input line by line even on a terminal",
            "  --wait=SECONDS     piped input: wait this long for the granary commands (default 60)",
            "  --config=PID:key=value[,key=value]",
            "                     a Config Admin setting, repeatable; 'a|b' gives a list. E.g.",
            "                     --config=granary.policy.quota:tableFile=quota.json,workerSpans=default:5000",
            "                     --config=granary.engine:policies=fair|queues|quota|gang|reservation",
            "  --help             print this text",
            "On a terminal the Gogo shell runs the console (granary:status, help granary:policy, ...).",
            "Piped input (a pipe or a file): each line that is not blank and does not start with '#' is a",
            "command; results go to standard output, errors to standard error as 'Error: <message>'.",
            "Exit codes: 0 done, 1 a command failed (--strict), 2 bad options, 3 the runtime did not start.");

    /**
     * Parses the command line; {@code system} supplies defaults ({@value #DEMO_PROPERTY}).
     *
     * @throws IllegalArgumentException naming the bad argument and the valid forms
     */
    public static Options parse(String[] args, Properties system) {
        boolean demo = bool(DEMO_PROPERTY + " (system property)", system.getProperty(DEMO_PROPERTY, "true"));
        boolean strict = false;
        boolean help = false;
        Mode mode = Mode.AUTO;
        Duration wait = Duration.ofSeconds(60);
        Map<String, Map<String, Object>> config = new LinkedHashMap<>();
        for (String arg : args) {
            if (arg.equals("--demo")) {
                demo = true;
            } else if (arg.startsWith("--demo=")) {
                demo = bool("--demo", arg.substring("--demo=".length()));
            } else if (arg.equals("--strict")) {
                strict = true;
            } else if (arg.equals("--interactive")) {
                mode = Mode.INTERACTIVE;
            } else if (arg.equals("--piped")) {
                mode = Mode.PIPED;
            } else if (arg.startsWith("--wait=")) {
                wait = seconds(arg.substring("--wait=".length()));
            } else if (arg.startsWith("--config=")) {
                config(arg.substring("--config=".length()), config);
            } else if (arg.equals("--help") || arg.equals("-h")) {
                help = true;
            } else {
                throw new IllegalArgumentException("unknown argument '" + arg + "'; valid: --demo=true|false, "
                        + "--strict, --interactive, --piped, --wait=SECONDS, --config=PID:key=value, --help");
            }
        }
        return new Options(demo, strict, mode, wait, help, config);
    }

    /** Parses {@code PID:key=value,key=value}; a value {@code a|b} becomes a list. */
    private static void config(String text, Map<String, Map<String, Object>> config) {
        int colon = text.indexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new IllegalArgumentException("--config: '" + text + "' is not PID:key=value[,key=value]");
        }
        String pid = text.substring(0, colon);
        Map<String, Object> props = config.computeIfAbsent(pid, p -> new LinkedHashMap<>());
        for (String pair : text.substring(colon + 1).split(",(?=[^,=]+=)")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--config " + pid + ": '" + pair + "' is not key=value");
            }
            String value = pair.substring(eq + 1);
            props.put(pair.substring(0, eq).trim(), value.contains("|") ? value.split("\\|") : value);
        }
    }

    private static boolean bool(String name, String value) {
        if (value.equalsIgnoreCase("true")) {
            return true;
        }
        if (value.equalsIgnoreCase("false")) {
            return false;
        }
        throw new IllegalArgumentException(name + ": '" + value + "' is not true or false");
    }

    private static Duration seconds(String value) {
        try {
            long s = Long.parseLong(value);
            if (s >= 1) {
                return Duration.ofSeconds(s);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--wait: '" + value + "' is not a whole number of seconds >= 1");
    }
}
