package granary.console;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import granary.api.model.JobSpec;
import granary.api.model.Text;
import granary.api.event.Receipt;
import granary.api.event.Scheduler;
import granary.api.event.Granted;
import granary.api.event.InputEvent;
import granary.api.event.JobCancelled;
import granary.api.event.JobMoved;
import granary.api.event.JobsSubmitted;
import granary.api.event.NodeBlacklisted;
import granary.api.event.PolicyActivated;
import granary.api.event.PolicyDeactivated;
import granary.api.event.Revoked;
import granary.api.spi.JobView;
import granary.api.spi.JobWhy;
import granary.codec.JobCodec;
import granary.master.LeaderLease;

import org.apache.felix.service.command.Descriptor;

/**
 * The {@code granary} core console commands: the engine's own (policies, status, nodes, jobs, work,
 * moves, and why a job waits). Every command asks the {@link Scheduler} (events and queries run on the engine thread,
 * between two decisions) and formats the answer with {@link ConsoleText}. Bad input is an
 * {@link IllegalArgumentException} with a precise message. A policy's reports and commands come from
 * its declaration ({@link PolicyCommandsComponent}).
 */
public class Commands {

    private static final long TIMEOUT_SECONDS = 30;

    /**
     * The core commands: the engine's own, present whatever policies are installed. A policy's
     * reports and commands ({@link PolicyCommandsComponent}) cannot take these names.
     */
    static final Set<String> CORE_NAMES = Set.of("policies", "policy", "deselect", "status", "nodes", "jobs", "submit",
            "cancel", "blacklist", "unblacklist", "move", "why");

    /** The parameters of every core command as the usage line names them. */
    private static final Map<String, String> PARAMETERS = Map.ofEntries(
            Map.entry("policies", ""),
            Map.entry("policy", "<name>"),
            Map.entry("deselect", "<name>"),
            Map.entry("status", ""),
            Map.entry("nodes", ""),
            Map.entry("jobs", ""),
            Map.entry("submit", "<file>"),
            Map.entry("cancel", "<job>"),
            Map.entry("blacklist", "<node>"),
            Map.entry("unblacklist", "<node>"),
            Map.entry("move", "<job> <queue>"),
            Map.entry("why", "<job>"));

    /**
     * The usage line of every core command, as a wrong call answers it: the parameters as typed and
     * the command's descriptor. Kept equal to the methods' {@code @Descriptor}s (CommandsArgumentsTest).
     */
    static final Map<String, String> USAGE = usageLines();

    private final Scheduler scheduler;
    private final SubmissionRefusals refusals;
    /** This master's lease under high availability (null: a single master, or none here). */
    private volatile LeaderLease lease;

    /** Commands whose status counts no refusals (nothing tells them of any). */
    public Commands(Scheduler scheduler) {
        this(scheduler, new SubmissionRefusals());
    }

    Commands(Scheduler scheduler, SubmissionRefusals refusals) {
        this.scheduler = scheduler;
        this.refusals = refusals;
    }

    @Descriptor("list installed policies: name, extension points, bundle, version, and 'active' on those in effect")
    public String policies() {
        return ConsoleText.policies(await(scheduler.query(v -> v.policies())));
    }

    @Descriptor("activate a policy at its extension point(s), replacing the one in effect at an exclusive point")
    public String policy(@Descriptor("policy name, e.g. fair") String name) {
        return changes(name, send(new PolicyActivated(name)), "is already active");
    }

    @Descriptor("deselect a policy; an exclusive point falls back to the next installed policy, or waits")
    public String deselect(@Descriptor("policy name") String name) {
        return changes(name, send(new PolicyDeactivated(name)), "was not selected");
    }

    @Descriptor("scheduler status as key=value lines")
    public String status() {
        String status = ConsoleText.status(await(scheduler.query(v -> v.status())), refusals.submissions(), refusals.jobs(),
                refusals.jobsByReason());
        LeaderLease l = lease;
        return l == null ? status : ConsoleText.role(l.held(), l.why(), l.leader()) + "\n" + status;
    }

    /** The master's lease, whose role the status names first; null or {@link LeaderLease#ALWAYS}: a single master, no line. */
    void lease(LeaderLease lease) {
        this.lease = lease == LeaderLease.ALWAYS ? null : lease;
    }

    @Descriptor("list nodes: name, room, capacity, free, units placed, labels, blacklist")
    public String nodes() {
        return ConsoleText.nodes(await(scheduler.query(Rows::nodes)));
    }

    @Descriptor("list jobs and their units: granted/desired slots, and why slots wait")
    public String jobs() {
        return ConsoleText.jobs(await(scheduler.query(Rows::jobs)));
    }

    @Descriptor("submit the job(s) of a JSON file (one job object or an array; see the README for the format)")
    public String submit(@Descriptor("path of the JSON file") String file) {
        List<JobSpec> jobs = readJobs(Path.of(file));
        // all or nothing: one refused job refuses the file, with every problem (docs/operations.md)
        Receipt r = send(new JobsSubmitted(jobs));
        // the groups the jobs were resolved to (full queue paths), in one read
        List<String> groups = await(scheduler.query(v -> jobs.stream()
                .map(j -> v.job(j.id()) == null ? j.group() : v.job(j.id()).group()).toList()));
        List<String> out = new ArrayList<>();
        for (int i = 0; i < jobs.size(); i++) {
            JobSpec job = jobs.get(i);
            String group = groups.get(i);
            long desired = job.units().stream().mapToLong(u -> u.desired()).sum();
            out.add("submitted " + Text.escape(job.id()) + " to " + Text.escape(group) + ": granted "
                    + grantedIn(r, job.id()) + " of " + desired + " slots");
        }
        return String.join("\n", out);
    }

    @Descriptor("cancel a job: its waiting desire is dropped and its slots are released")
    public String cancel(@Descriptor("job id") String job) {
        Receipt r = send(new JobCancelled(job));
        // a long sum of int slots: many units of a large job cannot wrap to a negative count
        long released = r.outputs().stream().filter(o -> o instanceof Revoked rv && rv.unit().job().equals(job))
                .mapToLong(o -> ((Revoked) o).slots()).sum();
        return "cancelled " + Text.escape(job) + ": released " + released + " slots";
    }

    @Descriptor("put a node on the global blacklist: it takes no new work, running work stays")
    public String blacklist(@Descriptor("node name") String node) {
        send(new NodeBlacklisted(node, true));
        return "blacklisted " + Text.escape(node);
    }

    @Descriptor("take a node off the global blacklist")
    public String unblacklist(@Descriptor("node name") String node) {
        Receipt r = send(new NodeBlacklisted(node, false));
        return "unblacklisted " + Text.escape(node) + ": granted " + grantedIn(r) + " slots";
    }

    @Descriptor("move a job to another queue; its grants stay, its usage and waiting units move")
    public String move(@Descriptor("job id") String job, @Descriptor("full path of the queue, e.g. root.a.p0") String queue) {
        send(new JobMoved(job, queue));
        String to = await(scheduler.query(v -> v.job(job) == null ? queue : v.job(job).group()));
        return "moved " + Text.escape(job) + " to " + Text.escape(to);
    }

    @Descriptor("why a job's slots wait: per waiting unit what it waits for and since when, the reasons the engine "
            + "found (most frequent first, with their numbers) and what would help")
    public String why(@Descriptor("job id") String job) {
        JobWhy why = await(scheduler.query(v -> {
            JobView j = v.job(job);
            return j == null ? null : JobWhy.of(j, v.now());
        }));
        if (why == null) {
            throw new Refusal("granary:why: no job " + Text.quote(job) + " in the scheduler: it was never"
                    + " submitted, or it has finished or was cancelled (granary:jobs lists the jobs)");
        }
        return String.join("\n", why.sentences());
    }

    // Wrong calls. Gogo picks a method by the number of arguments; a call that fits no command
    // above lands on its catch-all and answers the command's usage line (never Gogo's coercion text).
    @Descriptor("(any other arguments: answers with the usage line)")
    public String policies(@Descriptor("ignored") Object... args) {
        throw wrongCall("policies", args);
    }

    @Descriptor("(any other arguments: answers with the usage line)")
    public String policy(@Descriptor("ignored") Object... args) {
        throw wrongCall("policy", args);
    }

    @Descriptor("(any other arguments: answers with the usage line)")
    public String deselect(@Descriptor("ignored") Object... args) {
        throw wrongCall("deselect", args);
    }

    @Descriptor("(any other arguments: answers with the usage line)")
    public String status(@Descriptor("ignored") Object... args) {
        throw wrongCall("status", args);
    }

    @Descriptor("(any other arguments: answers with the usage line)")
    public String nodes(@Descriptor("ignored") Object... args) {
        throw wrongCall("nodes", args);
    }

    @Descriptor("(any other arguments: answers with the usage line)")
    public String jobs(@Descriptor("ignored") Object... args) {
        throw wrongCall("jobs", args);
    }

    @Descriptor("(any other arguments: answers with the usage line)")
    public String submit(@Descriptor("ignored") Object... args) {
        throw wrongCall("submit", args);
    }

    @Descriptor("(any other arguments: answers with the usage line)")
    public String cancel(@Descriptor("ignored") Object... args) {
        throw wrongCall("cancel", args);
    }

    @Descriptor("(any other arguments: answers with the usage line)")
    public String blacklist(@Descriptor("ignored") Object... args) {
        throw wrongCall("blacklist", args);
    }

    @Descriptor("(any other arguments: answers with the usage line)")
    public String unblacklist(@Descriptor("ignored") Object... args) {
        throw wrongCall("unblacklist", args);
    }

    @Descriptor("(any other arguments: answers with the usage line)")
    public String move(@Descriptor("ignored") Object... args) {
        throw wrongCall("move", args);
    }

    @Descriptor("(any other arguments: answers with the usage line)")
    public String why(@Descriptor("ignored") Object... args) {
        throw wrongCall("why", args);
    }

    static List<JobSpec> readJobs(Path path) {
        return Files2.read(path.toString(), JobCodec::read);
    }

    /** The error for a call of {@code name} with arguments that fit none of its forms. */
    static Refusal wrongCall(String name, Object[] args) {
        String params = PARAMETERS.get(name);
        int expected = params.isEmpty() ? 0 : params.split(" ").length;
        StringBuilder sb = new StringBuilder("granary:" + name + " takes " + expected + " argument"
                + (expected == 1 ? "" : "s") + ", got " + args.length);
        for (int i = 0; i < args.length && args.length <= expected; i++) {
            if (!(args[i] instanceof CharSequence) && args[i] != null) {
                sb.append("; argument ").append(i + 1).append(" must be text, got ")
                        .append(args[i].getClass().getSimpleName()).append(' ').append(Text.quote(String.valueOf(args[i])));
            }
        }
        if (args.length > expected) {
            sb.append(" (extra: ").append(Text.quote(String.valueOf(args[expected]))).append(')');
        }
        return new Refusal(sb.append("; usage: ").append(USAGE.get(name)).toString());
    }


    private static Map<String, String> usageLines() {
        Map<String, String> usage = new TreeMap<>();
        for (Method m : Commands.class.getMethods()) {
            Descriptor d = m.getAnnotation(Descriptor.class);
            if (d != null && CORE_NAMES.contains(m.getName()) && !m.isVarArgs()) {   // not the catch-all
                String p = PARAMETERS.get(m.getName());
                usage.put(m.getName(), "granary:" + m.getName() + (p.isEmpty() ? "" : " " + p) + " - " + d.value());
            }
        }
        return Map.copyOf(usage);
    }

    private static long grantedIn(Receipt r, String job) {
        return r.outputs().stream().filter(o -> o instanceof Granted g && g.unit().job().equals(job))
                .mapToLong(o -> ((Granted) o).slots()).sum();
    }

    private static long grantedIn(Receipt r) {
        return r.outputs().stream().filter(o -> o instanceof Granted).mapToLong(o -> ((Granted) o).slots()).sum();
    }

    private static String changes(String name, Receipt r, String noChange) {
        return r.notes().isEmpty() ? Text.escape(name) + " " + noChange : String.join("\n", r.notes());
    }

    private Receipt send(InputEvent e) {
        return await(scheduler.submit(e));
    }

    /** Waits for the engine's answer; its refusal comes back as a {@link Refusal} with its message. */
    static <T> T await(CompletableFuture<T> f) {
        try {
            return f.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            // the engine's refusal, in its own words (no Java class name on the console)
            throw Refusal.of(e.getCause());
        } catch (TimeoutException e) {
            throw new Refusal("the scheduler did not answer within " + TIMEOUT_SECONDS + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Refusal("interrupted while waiting for the scheduler's answer");
        }
    }
}
