package granary.jobmaster;

import granary.api.model.Resources;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command line of the sample job master, read strictly: every option is {@code --name=value}
 * (or {@code --help}); an unknown, repeated, missing or malformed one is an
 * {@link IllegalArgumentException} naming it.
 */
public record Settings(List<URI> masters, Path tokenFile, String job, int tasks, Resources slot, String command, String id,
                String group, String user, int retries, Duration timeout, Duration patience, String workdir,
                int online, String onlineCommand, Duration verify, Resources restartable, Path state,
                int blacklistAfter, Duration blacklistFor, boolean help) {

    /** What an online worker runs when {@code --online-command} is not given: a long sleep. */
    static final String DEFAULT_ONLINE_COMMAND = "exec sleep 86400";

    static final String USAGE = """
            usage: java -jar granary-jobmaster.jar --master=URL --token-file=FILE --job=ID --tasks=N --command=CMD [options]
              --master=URL[,URL...]  the master, e.g. http://127.0.0.1:7070; with high availability every
                                  master of the cluster: a standby points to the leader (docs/ha.md)
              --token-file=FILE   file holding this job master's token (job-master/<id>.…)
              --job=ID            the job's id
              --tasks=N           how many tasks (one unit 'tasks' of N slots)
              --command=CMD       run in each task as /bin/sh -c CMD, with GRANARY_JOB, GRANARY_TASK, GRANARY_TASKS set
              --slot=RES          one task's slot, default cpu=100,mem=256 (cpu in 1/100 cores, mem in MiB)
              --id=NAME           job master id, default jm-<job>; the token must be for job-master/NAME
              --group=G           quota group or queue of the job (also --queue=G), default 'default'
              --user=U            user the job runs for, default anonymous
              --retries=K         re-runs of a failed task, default 0
              --timeout=SECONDS   give up (exit 5) after this long, default 0: never
              --patience=SECONDS  give up (exit 4) when the master stays unreachable this long, default 60
              --workdir=DIR       working directory of the tasks on their nodes (inside each agent's work dir
                                  or --work-roots); default: each worker's own directory there
              --verify=SECONDS    how often to check with the agents that the workers this job master
                                  believes running still run, default 10; 0: never (see the README)
              --online=N          also run a service: unit 'service' (kind ONLINE) of N slots, default 0: none;
                                  it is cancelled when the batch tasks are done
              --online-command=CMD  what each service worker runs (/bin/sh -c), default 'exec sleep 86400';
                                  GRANARY_TASK is the service slot, GRANARY_UNIT=service
              --restartable=RES   the master starts this job master again, with the same command line,
                                  in a slot of RES on another node, when it is declared lost
                                  (docs/recovery.md, "Restarting a lost job master"); default
                                  cpu=50,mem=256; off: it is not started again
              --state=DIR         where the job master keeps its progress and its hints, so that a job
                                  master started again (by hand, or by the master) goes on where the
                                  last one stopped; default ./granary-jm-<id>.state; off: memory only.
                                  Removed when the job ends. Started on another node, it must see the
                                  same directory
              --blacklist-after=N tasks failed in a row on one node (exited non-zero, or the node could not
                                  start them) that keep this job off the node, default 2; 0: never
                                  (docs/agent.md, "Blacklisting a node for one job")
              --blacklist-for=SECONDS  how long the job keeps off such a node, default 600
              --help              this text
            exit codes: 0 every task succeeded, 1 some failed, 2 bad options, 3 token refused,
                        4 master unreachable, 5 timeout, 6 the master refused the job,
                        7 fenced: the master declared it lost and started it again elsewhere""";

    private static final Set<String> KNOWN = Set.of("master", "token-file", "job", "tasks", "command", "slot", "id",
            "group", "queue", "user", "retries", "timeout", "patience", "workdir", "online", "online-command", "verify",
            "restartable", "state", "blacklist-after", "blacklist-for");

    public static Settings parse(String... args) {
        Map<String, String> v = new LinkedHashMap<>();
        for (String a : args) {
            if (a.equals("--help") || a.equals("-h")) {
                return new Settings(null, null, null, 0, null, null, null, null, null, 0, null, null, null, 0, null, null, null, null, 0, null, true);
            }
            int eq = a.indexOf('=');
            if (!a.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("'" + a + "' is not an option of the form --name=value");
            }
            String name = a.substring(2, eq);
            if (!KNOWN.contains(name)) {
                throw new IllegalArgumentException("unknown option --" + name + "; known: " + String.join(", ", KNOWN.stream().sorted().toList()));
            }
            String key = name.equals("queue") ? "group" : name;
            if (v.put(key, a.substring(eq + 1)) != null) {
                throw new IllegalArgumentException("option --" + name + " is given twice");
            }
        }
        String job = required(v, "job");
        return new Settings(urls(required(v, "master")), Path.of(required(v, "token-file")), job,
                number(v, "tasks", null, 1), slot(v.getOrDefault("slot", "cpu=100,mem=256")), required(v, "command"),
                v.getOrDefault("id", "jm-" + job), v.get("group"), v.get("user"), number(v, "retries", "0", 0),
                Duration.ofSeconds(number(v, "timeout", "0", 0)), Duration.ofSeconds(number(v, "patience", "60", 1)),
                v.getOrDefault("workdir", ""), number(v, "online", "0", 0), onlineCommand(v),
                Duration.ofSeconds(number(v, "verify", "10", 0)), restartable(v.getOrDefault("restartable", DEFAULT_RESTART_SLOT)),
                state(v.get("state"), v.getOrDefault("id", "jm-" + job)), number(v, "blacklist-after", "2", 0),
                Duration.ofSeconds(number(v, "blacklist-for", "600", 1)), false);
    }

    private static String onlineCommand(Map<String, String> v) {
        String c = v.get("online-command");
        if (c == null) {
            return DEFAULT_ONLINE_COMMAND;
        }
        if (c.isBlank()) {
            throw new IllegalArgumentException("option --online-command is empty");
        }
        if (number(v, "online", "0", 0) == 0) {
            throw new IllegalArgumentException("option --online-command needs --online=N (N at least 1)");
        }
        return c;
    }

    private static String required(Map<String, String> v, String name) {
        String s = v.get(name);
        if (s == null || s.isBlank()) {
            throw new IllegalArgumentException("option --" + name + " is missing");
        }
        return s;
    }

    private static int number(Map<String, String> v, String name, String dflt, int least) {
        String s = dflt == null ? required(v, name) : v.getOrDefault(name, dflt);
        int n;
        try {
            n = Integer.parseInt(s.trim());
        } catch (NumberFormatException ex) {
            throw new IllegalArgumentException("option --" + name + ": expected a whole number, got '" + s + "'");
        }
        if (n < least) {
            throw new IllegalArgumentException("option --" + name + ": must be at least " + least + ", got " + n);
        }
        return n;
    }

    /** The masters' URLs, comma-separated: the leader is found among them (docs/ha.md, "Discovery"). */
    private static List<URI> urls(String s) {
        List<URI> out = new ArrayList<>();
        for (String part : s.split(",", -1)) {
            URI u = url(part.trim());
            if (out.contains(u)) {
                throw new IllegalArgumentException("option --master: " + u + " is listed twice");
            }
            out.add(u);
        }
        return List.copyOf(out);
    }

    private static URI url(String s) {
        URI u;
        try {
            u = URI.create(s);
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("option --master: '" + s + "' is not a URL: " + ex.getMessage());
        }
        if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null) {
            throw new IllegalArgumentException("option --master: expected http://HOST:PORT or https://HOST:PORT, got '" + s + "'");
        }
        return u;
    }

    /** The slot a job master the master starts again runs in, by default. */
    static final String DEFAULT_RESTART_SLOT = "cpu=50,mem=256";

    private static Path state(String s, String id) {
        if ("off".equals(s)) {
            return null;
        }
        if (s != null && s.isBlank()) {
            throw new IllegalArgumentException("option --state is empty; give a directory, or off");
        }
        return Path.of(s == null ? "granary-jm-" + id.replaceAll("[^A-Za-z0-9._-]", "_") + ".state" : s).toAbsolutePath();
    }

    private static Resources restartable(String s) {
        if ("off".equals(s)) {
            return null;
        }
        try {
            Resources r = Resources.parse(s);
            // the job master's own slot follows a unit's slot rules: not zero, nothing negative, within the limits
            granary.api.model.UnitSpec.builder("job-master").slot(r).desired(1).build();
            return r;
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("option --restartable: " + ex.getMessage());
        }
    }

    private static Resources slot(String s) {
        try {
            return Resources.parse(s);
        } catch (IllegalArgumentException ex) {
            throw new IllegalArgumentException("option --slot: " + ex.getMessage());
        }
    }
}
