package granary.agent;

import granary.api.model.Resources;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/** Reads the agent's options ({@code --name=value}) into an {@link AgentConfig}; every refusal names the option and its form. */
public final class CommandLine {

    public static final String USAGE = String.join("\n",
            "usage: java -jar granary-agent.jar --master=URL --node=NAME [--capacity=cpu=N,mem=MIB[,NAME=N...]]",
            "                                   --token-file=FILE --work-dir=DIR [options]",
            "  --master=URL[,URL...]     the master's base URL, e.g. http://10.0.0.1:7070; with high availability",
            "                            every master's, comma-separated (the agent finds the leader)",
            "  --node=NAME               this node's name",
            "  --room=ROOM               where the node stands (default: default)",
            "  --labels=k=v,k=v          the node's labels",
            "  --capacity=cpu=6400,mem=262144,gpu=4   cpu in 1/100 cores, mem in MiB, others extended",
            "                            (default: the machine's cores and memory less --reserve)",
            "  --reserve=cpu=100,mem=1024  kept for the system and the agent when the capacity is found (default)",
            "  --isolation=auto          off, soft (cgroups count and stop, no limits), hard (cgroups hold each",
            "                            worker to its slot's cpu and mem), auto (hard where cgroups can be",
            "                            written, else off with a warning); docs/agent.md",
            "  --worker-user=NAME        the user workers run as (default for an agent run as root: nobody)",
            "  --allowed-users=A,B       users a plan may name in GRANARY_USER besides --worker-user",
            "  --allow-root-workers      let workers run as root (never by default)",
            "  --health-command='PROG ARGS'  run every --health-period; exit code not 0, or a line starting",
            "                            with ERROR, makes the node unhealthy (no shell: name a script)",
            "  --health-period=30s       how often; --health-timeout=20s: how long one run may take",
            "  --failure-limit=3         launches failed in a row that make the node unhealthy (0: never)",
            "  --token-file=FILE         the agent's token (agent/NAME.<mac>), one line",
            "  --work-dir=DIR            checkpoint, worker logs and working directories",
            "  --work-roots=DIR[,DIR...] more directories a plan may name as a worker's working directory",
            "                            (default: none; workers run inside --work-dir)",
            "  --listen=HOST:PORT        the plan endpoint (default 127.0.0.1:0, a free port)",
            "  --advertise=URL           the plan endpoint's URL as job masters reach it (default: from --listen)",
            "  --keystore=FILE           serve plans over HTTPS with this key (PKCS12, or JKS for *.jks); needs",
            "                            --keystore-password-file=FILE and, if the key's differs, --key-password-file=FILE",
            "  --heartbeat=1s            heartbeat period (ms, s, m, h)",
            "  --register-retries=5      retries of a first registration before giving up (exit 4); an agent",
            "                            that runs workers, or was registered once, never gives up: it keeps",
            "                            its workers running and tries again (docs/recovery.md)",
            "  --max-workers=1024        workers running at once on this node",
            "  --max-pending=10000       launches kept while they wait for their cap",
            "  --pending-expiry=5m       how long a kept launch waits for its cap",
            "  --stop-grace=10s          between stopping a worker and killing it",
            "  --poll-wait=25s           how long one inbox poll waits at the master (at most 30s)",
            "  --exit-retention=30m      how long a worker's exit is remembered: a launch of its slot again",
            "                            is answered with the exit, not run again",
            "  --keep-workers-on-exit    leave workers running when the agent is stopped (default: stop them);",
            "                            an agent that gives up (exit 3, 4, 5) never stops its workers",
            "  --help                    this text",
            "exit codes: 0 stopped, 1 I/O failure, 2 bad options, 3 token refused, 4 master unreachable,",
            "            5 registration refused or not understood");

    private static final Set<String> FLAGS = Set.of("keep-workers-on-exit", "help", "allow-root-workers");
    private static final Set<String> VALUED = Set.of("master", "node", "room", "labels", "capacity", "token-file",
            "work-dir", "listen", "advertise", "heartbeat", "register-retries", "max-workers", "max-pending",
            "pending-expiry", "stop-grace", "poll-wait", "exit-retention", "work-roots", "keystore", "keystore-password-file",
            "key-password-file", "reserve", "isolation", "worker-user", "allowed-users", "health-command", "health-period",
            "health-timeout", "failure-limit");

    private CommandLine() {
    }

    /** True if {@code --help} is among the arguments. */
    public static boolean wantsHelp(String[] args) {
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h")) {
                return true;
            }
        }
        return false;
    }

    public static AgentConfig parse(String[] args) throws UsageException {
        Map<String, String> o = options(args);
        List<URI> masters = new ArrayList<>();
        for (String m : required(o, "master", "--master=http://HOST:PORT").split(",")) {
            masters.add(url("master", m.trim()));
        }
        URI master = masters.get(0);
        String node = required(o, "node", "--node=NAME");
        String capacityNote = null;
        Resources capacity;
        if (o.containsKey("capacity")) {
            capacity = capacity(required(o, "capacity", "--capacity=cpu=6400,mem=262144"));
            if (o.containsKey("reserve")) {
                throw new UsageException("--reserve goes without --capacity: it is what the agent keeps back from the machine's"
                        + " cores and memory when it finds the capacity itself");
            }
        } else {
            Resources reserve = reserve(o.getOrDefault("reserve", DEFAULT_RESERVE));
            int cores = Runtime.getRuntime().availableProcessors();
            long mem = ProcStat.memoryMiB();
            if (mem < 0) {
                throw new UsageException("--capacity is missing and the machine's memory cannot be read from /proc/meminfo:"
                        + " give --capacity=cpu=N,mem=MIB");
            }
            capacity = Resources.of(cores * 100L - reserve.cpu(), mem - reserve.memMb());
            if (!capacity.isNonNegative()) {
                throw new UsageException("--reserve=" + reserve + " is more than the machine has (" + cores + " cores, " + mem
                        + " MiB): give a smaller --reserve or --capacity");
            }
            capacityNote = "found on the machine: " + cores + " cores, " + mem + " MiB, less the reserve " + reserve;
        }
        String token = token(required(o, "token-file", "--token-file=FILE"));
        Path workDir = Path.of(required(o, "work-dir", "--work-dir=DIR")).toAbsolutePath();
        AgentConfig d = AgentConfig.of(master, node, capacity, token, workDir);
        return new AgentConfig(master, node, o.getOrDefault("room", d.room()), labels(o.get("labels")), capacity,
                token, workDir, listen(o.getOrDefault("listen", "127.0.0.1:0")),
                o.containsKey("advertise") ? url("advertise", o.get("advertise")) : null,
                duration(o, "heartbeat", d.heartbeat()), count(o, "register-retries", d.registerRetries(), 0),
                count(o, "max-workers", d.maxWorkers(), 1), count(o, "max-pending", d.maxPending(), 0),
                duration(o, "pending-expiry", d.pendingExpiry()), duration(o, "stop-grace", d.stopGrace()),
                pollWait(duration(o, "poll-wait", d.pollWait())), o.containsKey("keep-workers-on-exit"),
                masters.subList(1, masters.size()), duration(o, "exit-retention", d.exitRetention()), d.pollPause(),
                d.requestTimeout(), roots(o.get("work-roots")), tls(o), workers(o, capacityNote));
    }

    /** Kept back for the system and the agent when the capacity is found on the machine (docs/agent.md). */
    static final String DEFAULT_RESERVE = "cpu=100,mem=1024";

    private static Resources reserve(String text) throws UsageException {
        try {
            Resources r = Resources.parse(text);
            if (!r.isNonNegative()) {
                throw new IllegalArgumentException(r.firstNegative() + " is negative");
            }
            return r;
        } catch (RuntimeException ex) {
            throw new UsageException("--reserve=" + text + ": expected cpu=N,mem=MIB (cpu in 1/100 cores, mem in MiB): " + ex.getMessage());
        }
    }

    /** Isolation, users and health (docs/agent.md). */
    private static WorkerPolicy workers(Map<String, String> o, String capacityNote) throws UsageException {
        WorkerPolicy.Isolation isolation = WorkerPolicy.Isolation.AUTO;
        if (o.containsKey("isolation")) {
            try {
                isolation = WorkerPolicy.Isolation.valueOf(o.get("isolation").toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException ex) {
                throw new UsageException("--isolation=" + o.get("isolation") + ": expected off, soft, hard or auto");
            }
        }
        boolean root = OsLauncher.selfUid() == 0;
        boolean allowRoot = o.containsKey("allow-root-workers");
        String user = o.get("worker-user");
        if (user != null && user.isBlank()) {
            throw new UsageException("--worker-user= is empty: expected a user name, e.g. --worker-user=granary");
        }
        if (user == null && root && !allowRoot) {
            user = "nobody"; // never root by default; an operator names the user workers run as
        }
        if (user != null && (user.equals("root") || user.equals("0")) && !allowRoot) {
            throw new UsageException("--worker-user=" + user + ": workers run as root only with --allow-root-workers");
        }
        if (user != null && !root && OsLauncher.selfUid() >= 0) {
            throw new UsageException("--worker-user=" + user + ": the agent does not run as root, so it cannot start"
                    + " workers as another user (leave --worker-user out: they run as the agent's own user)");
        }
        if (user != null && !OsLauncher.userExists(user)) {
            throw new UsageException("--worker-user=" + user + ": there is no such user on this node");
        }
        java.util.Set<String> allowed = new java.util.TreeSet<>();
        if (o.get("allowed-users") != null) {
            for (String u : o.get("allowed-users").split(",")) {
                if (!u.isBlank()) {
                    allowed.add(u.trim());
                }
            }
            if ((allowed.contains("root") || allowed.contains("0")) && !allowRoot) {
                throw new UsageException("--allowed-users=" + o.get("allowed-users") + ": root is allowed only with --allow-root-workers");
            }
        }
        List<String> health = List.of();
        if (o.get("health-command") != null) {
            health = List.of(o.get("health-command").trim().split("\\s+"));
            if (health.get(0).isEmpty()) {
                throw new UsageException("--health-command= is empty: expected a program and its arguments, e.g."
                        + " --health-command='/etc/granary/health.sh --disks'");
            }
        }
        return WorkerPolicy.EMBEDDED.withIsolation(isolation).withUser(user, allowed, allowRoot || !root)
                .withHealth(health, duration(o, "health-period", Duration.ofSeconds(30)),
                        duration(o, "health-timeout", Duration.ofSeconds(20)),
                        count(o, "failure-limit", WorkerPolicy.DEFAULT_FAILURE_LIMIT, 0))
                .withCapacityNote(capacityNote);
    }

    /** {@code --keystore} and its password files, or null without {@code --keystore}. */
    private static AgentConfig.Tls tls(Map<String, String> o) throws UsageException {
        if (!o.containsKey("keystore")) {
            if (o.containsKey("keystore-password-file") || o.containsKey("key-password-file")) {
                throw new UsageException("--keystore-password-file and --key-password-file go with --keystore=FILE");
            }
            return null;
        }
        Path keystore = existing("keystore", o.get("keystore"));
        if (!o.containsKey("keystore-password-file")) {
            throw new UsageException("--keystore needs --keystore-password-file=FILE (its first line: the key store's password)");
        }
        return new AgentConfig.Tls(keystore, existing("keystore-password-file", o.get("keystore-password-file")),
                o.containsKey("key-password-file") ? existing("key-password-file", o.get("key-password-file")) : null);
    }

    private static Path existing(String option, String value) throws UsageException {
        Path p = Path.of(value).toAbsolutePath();
        if (!Files.isRegularFile(p)) {
            throw new UsageException("--" + option + ": " + p + " is not a file");
        }
        return p;
    }

    /** {@code --work-roots}: absolute, normalized directories, comma-separated. */
    private static List<Path> roots(String value) throws UsageException {
        List<Path> out = new ArrayList<>();
        if (value == null) {
            return out;
        }
        for (String r : value.split(",")) {
            if (r.isBlank()) {
                throw new UsageException("--work-roots: an empty directory in '" + value + "'; expected DIR[,DIR...]");
            }
            out.add(Path.of(r.trim()).toAbsolutePath().normalize());
        }
        return out;
    }

    private static Map<String, String> options(String[] args) throws UsageException {
        Map<String, String> o = new LinkedHashMap<>();
        for (String a : args) {
            if (!a.startsWith("--")) {
                throw new UsageException("unexpected argument '" + a + "': options are --name=value (see --help)");
            }
            int eq = a.indexOf('=');
            String name = eq < 0 ? a.substring(2) : a.substring(2, eq);
            if (FLAGS.contains(name)) {
                if (eq >= 0) {
                    throw new UsageException("--" + name + " takes no value, got '" + a + "'");
                }
                o.put(name, "");
            } else if (VALUED.contains(name)) {
                if (eq < 0) {
                    throw new UsageException("--" + name + " needs a value: --" + name + "=VALUE");
                }
                o.put(name, a.substring(eq + 1));
            } else {
                throw new UsageException("unknown option --" + name + "; known options: --"
                        + String.join(", --", sorted()));
            }
        }
        return o;
    }

    private static Set<String> sorted() {
        TreeSet<String> all = new TreeSet<>(VALUED);
        all.addAll(FLAGS);
        return all;
    }

    private static String required(Map<String, String> o, String name, String form) throws UsageException {
        String v = o.get(name);
        if (v == null || v.isBlank()) {
            throw new UsageException("--" + name + " is missing: " + form);
        }
        return v;
    }

    private static URI url(String name, String text) throws UsageException {
        try {
            URI u = new URI(text);
            if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
                throw new URISyntaxException(text, "not an http(s) URL with a host");
            }
            return u;
        } catch (URISyntaxException ex) {
            throw new UsageException("--" + name + "=" + text + ": expected an URL like http://10.0.0.1:7070 ("
                    + ex.getReason() + ")");
        }
    }

    private static Resources capacity(String text) throws UsageException {
        try {
            Resources r = Resources.parse(text);
            if (!r.isNonNegative()) {
                throw new IllegalArgumentException(r.firstNegative() + " is negative");
            }
            return r;
        } catch (RuntimeException ex) {
            throw new UsageException("--capacity=" + text + ": expected cpu=N,mem=MIB[,NAME=N...] (cpu in 1/100 cores,"
                    + " mem in MiB): " + ex.getMessage());
        }
    }

    private static String token(String file) throws UsageException {
        String t;
        try {
            t = Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
        } catch (IOException ex) {
            throw new UsageException("--token-file=" + file + ": cannot read it (" + ex + "); expected a file holding"
                    + " the agent's token agent/NODE.<mac>");
        }
        if (t.isEmpty() || t.contains("\n")) {
            throw new UsageException("--token-file=" + file + ": expected one line holding the agent's token"
                    + " agent/NODE.<mac>, got " + (t.isEmpty() ? "an empty file" : "several lines"));
        }
        return t;
    }

    private static Map<String, String> labels(String text) throws UsageException {
        Map<String, String> m = new TreeMap<>();
        if (text == null || text.isBlank()) {
            return m;
        }
        for (String pair : text.split(",")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                throw new UsageException("--labels=" + text + ": entry '" + pair + "' is not k=v; expected --labels=k=v,k=v");
            }
            m.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        return m;
    }

    private static InetSocketAddress listen(String text) throws UsageException {
        int colon = text.lastIndexOf(':');
        try {
            int port = Integer.parseInt(text.substring(colon + 1));
            if (colon <= 0 || port < 0 || port > 65_535) {
                throw new NumberFormatException();
            }
            return new InetSocketAddress(text.substring(0, colon), port);
        } catch (RuntimeException ex) {
            throw new UsageException("--listen=" + text + ": expected HOST:PORT with a port from 0 to 65535, e.g. 127.0.0.1:0");
        }
    }

    /** {@code 250ms}, {@code 1s}, {@code 5m}, {@code 2h}. */
    static Duration duration(Map<String, String> o, String name, Duration dflt) throws UsageException {
        String text = o.get(name);
        if (text == null) {
            return dflt;
        }
        String form = "--" + name + "=" + text + ": expected a positive duration like 250ms, 1s, 5m or 2h";
        int unitAt = 0;
        while (unitAt < text.length() && Character.isDigit(text.charAt(unitAt))) {
            unitAt++;
        }
        if (unitAt == 0 || unitAt > 12) {
            throw new UsageException(form);
        }
        long n = Long.parseLong(text.substring(0, unitAt));
        Duration d = switch (text.substring(unitAt)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> null;
        };
        if (d == null || d.isZero()) {
            throw new UsageException(form);
        }
        return d;
    }

    private static Duration pollWait(Duration d) throws UsageException {
        if (d.toMillis() > granary.protocol.link.Paths.MAX_WAIT_MILLIS) {
            throw new UsageException("--poll-wait=" + d.toMillis() + "ms: at most "
                    + granary.protocol.link.Paths.MAX_WAIT_MILLIS + "ms (the longest wait a master grants)");
        }
        return d;
    }

    private static int count(Map<String, String> o, String name, int dflt, int least) throws UsageException {
        String text = o.get(name);
        if (text == null) {
            return dflt;
        }
        try {
            int n = Integer.parseInt(text);
            if (n < least) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException ex) {
            throw new UsageException("--" + name + "=" + text + ": expected a whole number of at least " + least);
        }
    }
}
