package granary.jobmaster;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.client.JobMasterClient;
import granary.client.Listener;
import granary.protocol.Plan;
import granary.protocol.link.LinkException;
import java.io.PrintStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Runs one job of N tasks: as the master grants slots of its unit {@code tasks} it sends the
 * agents plans (task i runs {@code /bin/sh -c CMD}; the sample uses a shell, the protocol runs
 * none), hears each task's exit, re-runs failed tasks while retries are left (one more slot wanted
 * each time), and gives back slots it has no task for. Every callback runs on the client's event
 * thread, so the state here needs no locks; {@link #outcome()} is how the main thread waits.
 *
 * <p>With {@code --online=N} the job has a second unit {@code service} of kind ONLINE and N slots:
 * service worker i runs {@code --online-command} in slot i, is started again when it exits, and the
 * whole job is cancelled (the service stopped) once the batch tasks are done. A launch the agent
 * refuses because that slot of the unit "is already running" (a job master that restarted and
 * does not know its workers) adopts the running worker instead of launching it again.
 *
 * <p><b>Exits that never arrive.</b> A worker's exit travels agent → master → job master; an exit
 * the master accepted and then died with, or one that happened while the worker's agent was dead,
 * never reaches the job master, which would wait for it forever. So every {@code --verify} seconds
 * (and from a thread of its own: every entry point here is synchronized) the job master asks the
 * agents about the tasks it believes running for at least that long — and, after the master
 * restarted, about its service workers — with the launch it would send anyway: "already running"
 * confirms one; a launch the agent accepts re-runs one whose exit was lost; a refusal (its slot is
 * gone) puts the task back in line (docs/recovery.md, "Exits that never arrive"). A task may thus
 * run twice; it is never lost.
 */
final class SampleJobMaster implements Listener {

    static final String UNIT = "tasks";
    static final String SERVICE = "service";
    /** The exit code an agent reports for a worker whose end it saw but whose code it cannot know (docs/protocol.md). */
    static final int EXIT_UNKNOWN = -2;
    /** The exit code of a worker its agent stopped because its cap went down (docs/protocol.md): it releases nothing. */
    static final int STOPPED_BY_AGENT = -15;

    /** How the run ended: the process exit code and, for failures, a one-line message. */
    record Outcome(int code, String message) {
    }

    private record Node(String endpoint, int slots) {
    }

    private final Settings settings;
    private final PrintStream out;
    private final UnitId unit;
    private final TaskBoard board;
    private final Map<String, Node> nodes = new TreeMap<>();
    private final UnitId service;
    private final Map<String, Node> serviceNodes = new TreeMap<>();
    private final Deque<Integer> serviceWaiting = new ArrayDeque<>();
    private final Map<Integer, String> serviceRunning = new HashMap<>();
    /** When each running task and service worker was launched (nanoTime), for {@link #verify}. */
    private final Map<Integer, Long> taskSince = new HashMap<>();
    private final Map<Integer, Long> serviceSince = new HashMap<>();
    /**
     * Each node's agent endpoint as last heard, kept when the job master holds no slot there any more:
     * a worker believed running on such a node is asked about all the same (the agent knows).
     */
    private final Map<String, String> endpoints = new HashMap<>();
    /**
     * Service workers are asked about only after the master restarted (their exits may have died with
     * it), not every time: an agent that restarted does not know the workers it left running, and a
     * launch would start a second copy of a service beside its orphan. Batch tasks are asked about
     * every time: a task run twice is a waste, a task lost is a job that never ends.
     */
    private boolean servicesToVerify;
    private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    private volatile JobMasterClient client;
    private long unreachableSince;

    SampleJobMaster(Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
        this.unit = new UnitId(settings.job(), UNIT);
        this.board = new TaskBoard(settings.tasks(), settings.retries());
        this.service = new UnitId(settings.job(), SERVICE);
        for (int i = 0; i < settings.online(); i++) {
            serviceWaiting.add(i);
        }
    }

    /** The job as submitted: one unit of {@code desired} slots (and the service unit with {@code --online}). */
    JobSpec job(int desired) {
        return job(desired, settings.online());
    }

    private JobSpec job(int desired, int svc) {
        UnitSpec u = UnitSpec.builder(UNIT).slot(settings.slot()).desired(desired).build();
        if (settings.online() == 0) {
            return new JobSpec(settings.job(), settings.group(), settings.user(), 0, false, List.of(u));
        }
        UnitSpec s = UnitSpec.builder(SERVICE).slot(settings.slot()).kind(UnitKind.ONLINE).desired(svc).build();
        // the service first: its few slots are granted before the batch takes the rest
        return new JobSpec(settings.job(), settings.group(), settings.user(), 0, false, List.of(s, u));
    }

    /** Submits the job through {@code c}; from here on the callbacks drive the run. */
    synchronized void start(JobMasterClient c) {
        client = c;
        c.submit(job(settings.tasks()));
        say("submitted job=" + settings.job() + " tasks=" + settings.tasks()
                + (settings.online() > 0 ? " online=" + settings.online() : ""));
        fill(); // slots the master granted the job of the first request before this client was handed over
    }

    CompletableFuture<Outcome> outcome() {
        return outcome;
    }

    TaskBoard board() {
        return board;
    }

    // --- callbacks --------------------------------------------------------------------------

    @Override
    public synchronized void placementChanged(UnitId u, String node, String endpoint, int oldSlots, int newSlots) {
        Map<String, Node> m = u.equals(unit) ? nodes : u.equals(service) ? serviceNodes : null;
        if (m == null) {
            return;
        }
        if (newSlots == 0) {
            m.remove(node);
        } else {
            m.put(node, new Node(endpoint, newSlots));
            endpoints.put(node, endpoint);
        }
        fill();
    }

    @Override
    public synchronized void workerExited(UnitId u, String node, int slot, int exitCode) {
        if (u.equals(service)) {
            serviceExited(node, slot, exitCode);
            return;
        }
        if (!u.equals(unit)) {
            return;
        }
        if (exitCode == EXIT_UNKNOWN && node.equals(board.nodeOf(slot))) {
            // its agent could not learn the exit code (the task ended while the agent was down, or
            // the agent adopted it after a restart): whether it succeeded is unknown, so it runs
            // again, and that is not one of its retries
            board.lost(slot);
            taskSince.remove(slot);
            say("lost task=" + slot + " node=" + node + " (its exit code is unknown to its agent, which restarted): it runs again");
            wantMore(unit, 1);
            progress();
            fill();
            return;
        }
        TaskBoard.Result r = board.ended(slot, node, exitCode);
        if (r == TaskBoard.Result.UNKNOWN) {
            // An exit for no task running there: a task that verification ran again before its first
            // exit came, late. Its slot was released and the unit's desire lowered all the same (any
            // exit but an agent's stop does that): ask for it again, or a waiting task never gets one.
            if (exitCode != STOPPED_BY_AGENT && board.waiting() > 0) {
                wantMore(unit, 1);
                fill();
            }
            return;
        }
        taskSince.remove(slot);
        say("finished task=" + slot + " node=" + node + " code=" + exitCode);
        if (r == TaskBoard.Result.RETRY) {
            say("retry task=" + slot + " attempt=" + (board.attempts(slot) + 1) + "/" + (settings.retries() + 1));
            wantMore(unit, 1);
        }
        progress();
        if (board.complete()) {
            List<Integer> failed = board.failed();
            finish(failed.isEmpty() ? new Outcome(0, null) : new Outcome(1, "job " + settings.job() + ": "
                    + failed.size() + " of " + board.tasks() + " tasks failed (tasks " + failed + ")"));
            return;
        }
        fill();
    }

    @Override
    public synchronized void resynced(long masterIncarnation) {
        say("resynced master-incarnation=" + masterIncarnation + " running=" + board.running());
        servicesToVerify = true;
    }

    @Override
    public synchronized void linkFailed(LinkException failure) {
        if (failure.kind() == LinkException.Kind.UNAUTHORIZED) {
            outcome.complete(new Outcome(Main.TOKEN_REFUSED, "the master refused the token of job-master/" + settings.id()
                    + ": " + failure.getMessage()));
            return;
        }
        long now = System.nanoTime();
        if (unreachableSince == 0) {
            unreachableSince = now;
            System.err.println("granary-jobmaster: " + failure.getMessage() + " (trying again)");
        } else if (now - unreachableSince > settings.patience().toNanos()) {
            outcome.complete(new Outcome(Main.UNREACHABLE, "the master at " + Main.masters(settings) + " was unreachable for "
                    + settings.patience().toSeconds() + " s: " + failure.getMessage()));
        }
    }

    /** The master started this job master again elsewhere (it is restartable): this one must stop. */
    @Override
    public synchronized void fenced(LinkException why) {
        say("fenced " + why.getMessage());
        outcome.complete(new Outcome(Main.FENCED, "job master " + settings.id() + " was declared lost and started again elsewhere;"
                + " this incarnation exits: " + why.getMessage()));
    }

    @Override
    public synchronized void linkRestored() {
        unreachableSince = 0;
    }

    /** A service worker ended: it is started again (a service runs until the job is done). */
    private void serviceExited(String node, int slot, int exitCode) {
        if (!node.equals(serviceRunning.get(slot)) || outcome.isDone()) {
            return;
        }
        serviceRunning.remove(slot);
        serviceSince.remove(slot);
        serviceWaiting.add(slot);
        say("service-exited slot=" + slot + " node=" + node + " code=" + exitCode);
        wantMore(service, 1);
        fill();
    }

    /** The job is done: with a service, the job is cancelled (its workers stopped) before the outcome. */
    private void finish(Outcome o) {
        if (settings.online() > 0) {
            try {
                client.cancel(settings.job());
                say("cancelled job=" + settings.job() + " service=" + settings.online());
            } catch (RuntimeException ex) {
                System.err.println("granary-jobmaster: cannot cancel the service of job " + settings.job() + ": " + ex.getMessage());
            }
        }
        outcome.complete(o);
    }

    // --- verification ------------------------------------------------------------------------

    /** What the agent said of a worker the job master believes running. */
    private enum Probe { RUNNING, RELAUNCHED, GONE, UNKNOWN }

    /**
     * Asks the agents about every task and service worker believed running for at least
     * {@code --verify}; called every {@code --verify} seconds. The agent is asked even where the job
     * master holds no slots right now (a master re-syncing, or one that released the slot of an exit
     * it then lost): it is the one that knows what runs on its node.
     */
    synchronized void verify() {
        if (outcome.isDone() || client == null) {
            return;
        }
        long oldEnough = System.nanoTime() - settings.verify().toNanos();
        int lost = 0;
        for (Map.Entry<Integer, String> e : new TreeMap<>(board.runningTasks()).entrySet()) {
            int t = e.getKey();
            String endpoint = endpoints.get(e.getValue());
            if (endpoint == null || taskSince.getOrDefault(t, Long.MAX_VALUE) > oldEnough) {
                continue;
            }
            switch (probe(endpoint, taskLaunch(t))) {
                case RELAUNCHED -> {
                    taskSince.put(t, System.nanoTime());
                    say("relaunched task=" + t + " node=" + e.getValue() + " (its exit never reached this job master)");
                }
                case GONE -> {
                    board.lost(t);
                    taskSince.remove(t);
                    lost++;
                    say("lost task=" + t + " node=" + e.getValue() + " (not running and no slot for it there): it waits again");
                }
                default -> { }
            }
        }
        if (servicesToVerify && verifyServices(oldEnough)) {
            servicesToVerify = false;   // every service worker answered for
        }
        if (lost > 0) {
            wantMore(unit, lost);
            progress();
        }
        fill();
    }

    /** Asks about each service worker; true if every one was asked and the agent answered. */
    private boolean verifyServices(long oldEnough) {
        boolean all = true;
        for (Map.Entry<Integer, String> e : new TreeMap<>(serviceRunning).entrySet()) {
            int s = e.getKey();
            String endpoint = endpoints.get(e.getValue());
            if (endpoint == null || serviceSince.getOrDefault(s, Long.MAX_VALUE) > oldEnough) {
                all = false;   // asked next time
                continue;
            }
            switch (probe(endpoint, serviceLaunch(s))) {
                case RELAUNCHED -> {
                    serviceSince.put(s, System.nanoTime());
                    say("relaunched service=" + s + " node=" + e.getValue() + " (its exit never reached this job master)");
                }
                case GONE -> {
                    serviceRunning.remove(s);
                    serviceSince.remove(s);
                    serviceWaiting.add(s);
                    say("lost service=" + s + " node=" + e.getValue() + ": it waits again");
                    wantMore(service, 1);
                }
                case UNKNOWN -> all = false;
                case RUNNING -> { }
            }
        }
        return all;
    }

    /** The launch the job master would send anyway, as a question: the agent's answer says where the worker is. */
    private Probe probe(String endpoint, Plan.Launch l) {
        try {
            client.launch(endpoint, List.of(l));
            return Probe.RELAUNCHED;
        } catch (InvalidRequestException ex) {
            return alreadyRunning(ex) ? Probe.RUNNING : Probe.GONE;
        } catch (RuntimeException ex) {
            return Probe.UNKNOWN; // the agent is unreachable now: ask again next time
        }
    }

    // --- work -------------------------------------------------------------------------------

    /** Launches waiting tasks into free slots, node by node; gives back slots no task will use. */
    private void fill() {
        if (outcome.isDone() || client == null) {
            return;   // done, or not started: start() fills
        }
        for (Map.Entry<String, Node> e : new ArrayList<>(nodes.entrySet())) {
            String node = e.getKey();
            int free = e.getValue().slots() - board.runningOn(node);
            List<Integer> batch = new ArrayList<>();
            for (Integer t; batch.size() < free && (t = board.take()) != null; ) {
                batch.add(t);
            }
            if (!batch.isEmpty()) {
                launch(node, e.getValue().endpoint(), batch);
            } else if (free > 0 && board.waiting() == 0) {
                give(unit, node, free);
            }
        }
        for (Map.Entry<String, Node> e : new ArrayList<>(serviceNodes.entrySet())) {
            String node = e.getKey();
            int free = e.getValue().slots() - (int) serviceRunning.values().stream().filter(node::equals).count();
            for (int i = 0; i < free && !serviceWaiting.isEmpty(); i++) {
                int s = serviceWaiting.poll();
                launchService(node, e.getValue().endpoint(), s);
            }
        }
    }

    /** Launches service worker {@code s} on {@code node}, or adopts it if it runs there already. */
    private void launchService(String node, String endpoint, int s) {
        Plan.Launch l = serviceLaunch(s);
        try {
            client.launch(endpoint, List.of(l));
            say("launched service=" + s + " node=" + node);
        } catch (InvalidRequestException ex) {
            if (alreadyRunning(ex)) {
                say("adopted service=" + s + " node=" + node);
            } else {
                System.err.println("granary-jobmaster: cannot launch service slot " + s + " on node " + node + ": "
                        + ex.getMessage() + "; trying again later");
                serviceWaiting.addFirst(s);
                return;
            }
        } catch (RuntimeException ex) {
            System.err.println("granary-jobmaster: cannot launch service slot " + s + " on node " + node + " (" + endpoint
                    + "): " + ex.getMessage() + "; trying again later");
            serviceWaiting.addFirst(s);
            return;
        }
        serviceRunning.put(s, node);
        serviceSince.put(s, System.nanoTime());
    }

    private static boolean alreadyRunning(InvalidRequestException ex) {
        return ex.problems().stream().anyMatch(p -> p.message() != null && p.message().contains("is already running"));
    }

    private Plan.Launch taskLaunch(int t) {
        return new Plan.Launch(unit, t, List.of("/bin/sh", "-c", settings.command()),
                Map.of("GRANARY_JOB", settings.job(), "GRANARY_TASK", Integer.toString(t),
                        "GRANARY_TASKS", Integer.toString(settings.tasks())), settings.workdir());
    }

    private Plan.Launch serviceLaunch(int s) {
        return new Plan.Launch(service, s, List.of("/bin/sh", "-c", settings.onlineCommand()),
                Map.of("GRANARY_JOB", settings.job(), "GRANARY_UNIT", SERVICE, "GRANARY_TASK", Integer.toString(s),
                        "GRANARY_TASKS", Integer.toString(settings.online())), settings.workdir());
    }

    private void launch(String node, String endpoint, List<Integer> batch) {
        List<Plan.Launch> launches = new ArrayList<>();
        for (int t : batch) {
            launches.add(taskLaunch(t));
        }
        try {
            client.launch(endpoint, launches);
        } catch (InvalidRequestException ex) {
            if (alreadyRunning(ex)) {
                // a restarted job master: launch one by one, adopting the tasks that still run there
                for (Plan.Launch l : launches) {
                    launchOrAdopt(node, endpoint, l);
                }
                return;
            }
            refused(node, batch, ex);
            return;
        } catch (RuntimeException ex) {
            refused(node, batch, ex);
            return;
        }
        for (int t : batch) {
            board.started(t, node);
            taskSince.put(t, System.nanoTime());
            say("launched task=" + t + " node=" + node);
        }
    }

    private void launchOrAdopt(String node, String endpoint, Plan.Launch l) {
        int t = l.slot();
        try {
            client.launch(endpoint, List.of(l));
            board.started(t, node);
            taskSince.put(t, System.nanoTime());
            say("launched task=" + t + " node=" + node);
        } catch (InvalidRequestException ex) {
            if (alreadyRunning(ex)) {
                board.started(t, node);
                taskSince.put(t, System.nanoTime());
                say("adopted task=" + t + " node=" + node);
            } else {
                refused(node, List.of(t), ex);
            }
        } catch (RuntimeException ex) {
            refused(node, List.of(t), ex);
        }
    }

    /** A plan the agent refused or could not take: its tasks wait again, the slots go back and as many are asked for. */
    private void refused(String node, List<Integer> batch, RuntimeException ex) {
        System.err.println("granary-jobmaster: cannot launch on node " + node + ": " + ex.getMessage()
                + "; giving its slots back");
        for (int i = batch.size() - 1; i >= 0; i--) {
            board.putBack(batch.get(i));
        }
        give(unit, node, batch.size());
        wantMore(unit, batch.size());
    }

    /** Gives back {@code slots} slots on {@code node} (the unit then wants that many fewer). */
    private void give(UnitId u, String node, int slots) {
        try {
            client.release(u, node, slots);
        } catch (RuntimeException ex) {
            System.err.println("granary-jobmaster: cannot give back " + slots + " slots on node " + node + ": " + ex.getMessage());
        }
    }

    /** Wants {@code n} more slots; if the master ended the job meanwhile (nothing was wanted), submits it again. */
    private void wantMore(UnitId u, int n) {
        int desired = Math.max(0, client.desired(u)) + n;
        try {
            client.desire(u, desired);
        } catch (InvalidRequestException ex) {
            client.submit(u.equals(unit) ? job(desired, Math.max(0, client.desired(service)))
                    : job(Math.max(0, client.desired(unit)), desired));
        } catch (LinkException ex) {
            System.err.println("granary-jobmaster: cannot ask for " + n + " more slots: " + ex.getMessage());
        }
    }

    private void progress() {
        say("progress job=" + settings.job() + " done=" + board.succeeded() + "/" + board.tasks() + " running="
                + board.running() + " failed=" + board.failed().size());
    }

    private void say(String line) {
        synchronized (out) {
            out.println(line);
            out.flush();
        }
    }
}
