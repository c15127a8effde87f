package granary.launcher;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

import granary.protocol.link.Tokens;

/**
 * The launcher's command line.
 *
 * @param demo        run the embedded demo cluster (Config Admin PID {@code granary.demo}, {@code enabled})
 * @param strict      piped input: a failed command makes the exit code 1
 * @param mode        console mode; AUTO = interactive when standard input and output are a terminal
 * @param commandWait piped input: how long to wait for the {@code granary:*} commands to appear
 * @param help        print the usage and exit
 * @param config      Config Admin settings given with {@code --config}: PID → property → value
 * @param listen      where the HTTP server listens; null: no HTTP server ({@code --listen=off})
 * @param tls         HTTPS on {@code listen} with this key; null: plain HTTP
 * @param secret      the master's token secret file
 * @param issueToken  print the token of this identity ({@code role/id}) and exit; null: run the runtime
 * @param createSecret with {@code issueToken}: make a new secret if the file is missing (else that is an error)
 * @param expires     with {@code issueToken}: how long the token is good for; null: it does not expire
 * @param tokenOp     another token operation on the secret file, then exit: {@code rotate} (a new issuing key
 *                    first in the file) or {@code revoke:<token or id>}; null: none
 */
public record Options(boolean demo, boolean strict, Mode mode, Duration commandWait, boolean help,
                      Map<String, Map<String, Object>> config, Http.Address listen, Http.Tls tls, Path secret,
                      String issueToken, boolean createSecret, Duration expires, String tokenOp) {

    public Options {
        config = Map.copyOf(config);
    }

    /** The options of the runtime before the HTTP server, for tests and callers that need no HTTP settings. */
    Options(boolean demo, boolean strict, Mode mode, Duration commandWait, boolean help, Map<String, Map<String, Object>> config) {
        this(demo, strict, mode, commandWait, help, config, Http.Address.DEFAULT, null, DEFAULT_SECRET, null, false, null, null);
    }

    /** The default of {@code --secret}, in the working directory. */
    public static final Path DEFAULT_SECRET = Path.of("granary.secret");

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
            "  --listen=HOST:PORT where the master serves the protocol and the HTTP API (default 127.0.0.1:7070;",
            "                     PORT 0 = a free port); --listen=off: no HTTP server",
            "  --keystore=FILE    serve HTTPS, not HTTP, on the listen address with this key store (PKCS12 or JKS);",
            "                     needs --keystore-password-file=FILE (first line: the password) and, if the",
            "                     key's password differs, --key-password-file=FILE",
            "  --secret=FILE      the master's token secret (default granary.secret in the working directory;",
            "                     created if missing)",
            "  --zk=HOST:PORT[,HOST:PORT...]",
            "                     high availability: elect one leader among the masters on this ZooKeeper",
            "                     ensemble; the others are standbys (docs/ha.md). Default: a single master",
            "  --ha-cluster=NAME  high availability: the cluster whose masters elect a leader (default 'default')",
            "  --advertise=URL    high availability: this master's URL as peers reach it (default: from --listen)",
            "  --issue-token=ROLE/ID",
            "                     print the token of agent/NODE or job-master/NAME, or of an HTTP API user",
            "                     reader/NAME, operator/NAME or admin/NAME (from --secret) and exit; a missing",
            "                     secret file is an error (a master makes it when it first starts)",
            "  --create-secret    with --issue-token: make a new secret if the --secret file is missing",
            "  --expires=DURATION with --issue-token: the token expires after 90m, 12h, 30d... (default: never)",
            "  --rotate-secret    put a new issuing key first in the --secret file and exit; tokens of the keys",
            "                     after it are still taken until their lines are removed (no restart needed)",
            "  --revoke-token=TOKEN|ID",
            "                     list the token (or its id) in the secret's .revoked file and exit; the running",
            "                     master refuses it within a second",
            "  --help             print this text",
            "On a terminal the Gogo shell runs the console (granary:status, help granary:policy, ...).",
            "Piped input (a pipe or a file): each line that is not blank and does not start with '#' is a",
            "command; results go to standard output, errors to standard error as 'Error: <message>'.",
            "Once the HTTP server listens, standard error shows 'granary: listening on http://HOST:PORT'.",
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
        Http.Address listen = Http.Address.DEFAULT;
        Path secret = DEFAULT_SECRET;
        String issueToken = null;
        boolean createSecret = false;
        Duration expires = null;
        String tokenOp = null;
        Path keystore = null;
        Path keystorePassword = null;
        Path keyPassword = null;
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
            } else if (arg.startsWith("--listen=")) {
                listen = listen(arg.substring("--listen=".length()));
            } else if (arg.startsWith("--secret=")) {
                secret = file("--secret", arg.substring("--secret=".length()));
            } else if (arg.startsWith("--zk=")) {
                master(config).put("zk", nonBlank("--zk", arg.substring("--zk=".length()), "HOST:PORT[,HOST:PORT...]"));
            } else if (arg.startsWith("--ha-cluster=")) {
                master(config).put("haCluster", nonBlank("--ha-cluster", arg.substring("--ha-cluster=".length()), "NAME"));
            } else if (arg.startsWith("--advertise=")) {
                master(config).put("advertise", nonBlank("--advertise", arg.substring("--advertise=".length()), "http://HOST:PORT"));
            } else if (arg.startsWith("--issue-token=")) {
                issueToken = identity(arg.substring("--issue-token=".length()));
            } else if (arg.equals("--create-secret")) {
                createSecret = true;
            } else if (arg.startsWith("--expires=")) {
                expires = lifetime(arg.substring("--expires=".length()));
            } else if (arg.equals("--rotate-secret")) {
                tokenOp = "rotate";
            } else if (arg.startsWith("--revoke-token=")) {
                tokenOp = "revoke:" + nonBlank("--revoke-token", arg.substring("--revoke-token=".length()), "TOKEN or its id");
            } else if (arg.startsWith("--keystore=")) {
                keystore = file("--keystore", arg.substring("--keystore=".length()));
            } else if (arg.startsWith("--keystore-password-file=")) {
                keystorePassword = file("--keystore-password-file", arg.substring("--keystore-password-file=".length()));
            } else if (arg.startsWith("--key-password-file=")) {
                keyPassword = file("--key-password-file", arg.substring("--key-password-file=".length()));
            } else if (arg.equals("--help") || arg.equals("-h")) {
                help = true;
            } else {
                throw new IllegalArgumentException("unknown argument '" + arg + "'; valid: --demo=true|false, "
                        + "--strict, --interactive, --piped, --wait=SECONDS, --config=PID:key=value, --listen=HOST:PORT|off, "
                        + "--keystore=FILE, --keystore-password-file=FILE, --key-password-file=FILE, --secret=FILE, "
                        + "--zk=HOST:PORT[,HOST:PORT...], --ha-cluster=NAME, --advertise=URL, "
                        + "--issue-token=ROLE/ID, --create-secret, --expires=DURATION, --rotate-secret, --revoke-token=TOKEN|ID, --help");
            }
        }
        Http.Tls tls = tls(keystore, keystorePassword, keyPassword, listen);
        if (createSecret && issueToken == null) {
            throw new IllegalArgumentException("--create-secret goes with --issue-token (a master makes its secret when it first starts)");
        }
        if (expires != null && issueToken == null) {
            throw new IllegalArgumentException("--expires goes with --issue-token");
        }
        return new Options(demo, strict, mode, wait, help, config, listen, tls, secret, issueToken, createSecret, expires, tokenOp);
    }

    /** {@code HOST:PORT} (an IPv6 host in brackets, {@code [::1]:7070}), or {@code off} for null. */
    static Http.Address listen(String text) {
        if (text.equals("off")) {
            return null;
        }
        int colon = text.lastIndexOf(':');
        String host = colon < 0 ? "" : text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port = -1;
        try {
            port = colon < 0 ? -1 : Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            // reported below
        }
        if (host.isBlank() || port < 0 || port > 65535) {
            throw new IllegalArgumentException("--listen: '" + text + "' is not HOST:PORT (PORT 0-65535, 0 = a free port) "
                    + "or off; e.g. --listen=127.0.0.1:7070");
        }
        return new Http.Address(host, port);
    }

    /** The settings of Config Admin PID granary.master, which the HA options fill in. */
    private static Map<String, Object> master(Map<String, Map<String, Object>> config) {
        return config.computeIfAbsent("granary.master", p -> new LinkedHashMap<>());
    }

    private static String nonBlank(String option, String text, String form) {
        if (text.isBlank()) {
            throw new IllegalArgumentException(option + ": a value is missing (" + option + "=" + form + ")");
        }
        return text.trim();
    }

    private static Path file(String option, String text) {
        if (text.isBlank()) {
            throw new IllegalArgumentException(option + ": a file name is missing (" + option + "=FILE)");
        }
        return Path.of(text);
    }

    private static String identity(String text) {
        int slash = text.indexOf('/');
        if (slash > 0 && slash < text.length() - 1 && granary.http.ApiRole.ofWire(text.substring(0, slash)) != null) {
            return text; // a user of the HTTP API: reader/NAME, operator/NAME, admin/NAME (docs/api.md)
        }
        try {
            return Tokens.identity(Tokens.parseIdentity(text));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--issue-token: " + e.getMessage()
                    + "; for the HTTP API: reader/NAME, operator/NAME or admin/NAME", e);
        }
    }

    private static Http.Tls tls(Path keystore, Path keystorePassword, Path keyPassword, Http.Address listen) {
        if (keystore == null) {
            if (keystorePassword != null || keyPassword != null) {
                throw new IllegalArgumentException("--keystore-password-file and --key-password-file need --keystore=FILE");
            }
            return null;
        }
        if (keystorePassword == null) {
            throw new IllegalArgumentException("--keystore needs --keystore-password-file=FILE (its first line is the password)");
        }
        if (listen == null) {
            throw new IllegalArgumentException("--keystore serves HTTPS on the listen address, but --listen=off turns it off");
        }
        return new Http.Tls(keystore, keystorePassword, keyPassword);
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

    /** {@code --expires}: 90m, 12h, 30d (at least a minute). */
    static Duration lifetime(String value) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,9})([mhd])").matcher(value);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            Duration d = switch (m.group(2)) {
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
            if (d.toMinutes() >= 1) {
                return d;
            }
        }
        throw new IllegalArgumentException("--expires: '" + value + "' is not a lifetime like 90m, 12h or 30d (at least 1m)");
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
