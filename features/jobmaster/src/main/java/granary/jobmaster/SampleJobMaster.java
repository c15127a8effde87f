package granary.jobmaster;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.client.JobMasterClient;
import granary.client.Listener;
import granary.protocol.Heartbeat;
import granary.protocol.Hint;
import granary.protocol.LaunchAnswers;
import granary.protocol.Plan;
import granary.protocol.disk.Disk;
import granary.protocol.link.LinkException;
import granary.protocol.link.Loop;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

/**
 * Runs one job of N tasks: as the master grants slots of its unit {@code tasks} it sends the
 * agents plans (task i runs {@code /bin/sh -c CMD}; the sample uses a shell, the protocol runs
 * none), hears each task's end, runs failed tasks again while retries are left (one more slot wanted
 * each time), and gives back slots it has no task for. With {@code --online=N} the job has a second
 * unit {@code service} of kind ONLINE and N slots: service worker i runs {@code --online-command},
 * is started again when it ends, and the whole job is cancelled (the service stopped) once the batch
 * tasks are done.
 *
 * <p>A state machine on the client's loop (docs/recovery.md, "One agent, one job master client"):
 * every callback runs there, so nothing here is locked, and the conformance kit runs this very class
 * on its simulated world.
 *
 * <p><b>Recovery</b> (docs/recovery.md): every run of a task takes a slot of its own
 * ({@link TaskBoard}); the progress is written to disk before every launch and after every end
 * ({@link Progress}), so a job master started again goes on where the last one stopped; a task it is
 * not sure about is asked about by sending its launch again: the agent answers that it runs, that it
 * ended (and how), or starts it if it never heard of it. Every {@code --verify} seconds the tasks
 * believed running for that long are asked about this way — exits can be lost with a master that
 * dies holding them — but only while a master answers: with no master nobody re-launches anything.
 * A worker its agent stopped ({@link Heartbeat#STOPPED}: a withdrawn cap), one whose node was
 * declared lost, or one whose end nobody recorded runs again without being charged a retry. A master
 * that is away (unreachable, 401 while it restarts with another secret, 503 while a standby takes
 * over) is waited for up to {@code --patience}, saying so.
 */
public final class SampleJobMaster implements Listener {

    public static final String UNIT = "tasks";
    public static final String SERVICE = "service";

    /** How the run ended: the process exit code and, for failures, a one-line message. */
    public record Outcome(int code, String message) {
    }


    private final Settings settings;
    private final Loop loop;
    private final Progress progress;
    private final Consumer<String> out;
    private final Consumer<String> err;
    private final UnitId unit;
    private final UnitId service;
    private final WorkerPlans plans;
    private TaskBoard board;
    private TaskBoard services;

    /** When each running task and service worker was launched (loop ms); absent: to ask about at the next verification. */
    private final Map<Integer, Long> taskSince = new HashMap<>();
    private final Map<Integer, Long> serviceSince = new HashMap<>();
    /**
     * Service workers are asked about only after a restart (the master's, or this job master's),
     * not every time: a service is not something to start twice on a guess.
     */
    private boolean servicesToVerify;
    private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    private JobMasterClient client;
    private long troubleSince = -1;
    private Loop.Timer verifyTimer = Loop.NONE;
    private boolean finishing;
    /** Ends learned from an agent before the master's hint brought them. */
    private final EndsAhead endsAhead = new EndsAhead();

    /** The slots the unit held at the last verification round, to see whether waiting tasks get any. */
    private int heldAtLastVerify = -1;
    /** Nodes this job keeps off after its tasks failed there in a row. */
    private final KeptOff keptOff;
    /** Task → how often a node could not start it, in this incarnation. */
    private final Map<Integer, Integer> notStarted = new HashMap<>();
    /**
     * How often a task may find its node unable to start it (its agent's fault, not the task's: no
     * attempt is charged) before that counts as a failed attempt: a launch that no node can start
     * (a user no agent allows) must not go round forever.
     */
    static final int NOT_STARTED_LIMIT = 5;

    /**
     * @param state where the progress is kept (and found after a restart), or null: in memory only
     */
    public SampleJobMaster(Settings settings, Loop loop, Disk state, Consumer<String> out, Consumer<String> err) {
        this.settings = settings;
        this.loop = loop;
        this.progress = state == null ? null : new Progress(state);
        this.out = out;
        this.err = err;
        this.unit = new UnitId(settings.job(), UNIT);
        this.service = new UnitId(settings.job(), SERVICE);
        this.plans = new WorkerPlans(settings, unit, service);
        this.keptOff = new KeptOff(settings, unit, this::say, err);
        this.board = new TaskBoard(settings.tasks(), settings.retries());
        this.services = new TaskBoard(settings.online(), Integer.MAX_VALUE);
    }

    /**
     * Reads the progress a previous life left, if any (a damaged file is moved aside and the run
     * starts over). Call before {@link #jobs()}.
     *
     * @throws IllegalArgumentException the progress is of another job (its id or sizes differ)
     */
    public void load() throws IOException {
        if (progress == null) {
            return;
        }
        Progress.Loaded l = progress.load(loop.now());
        if (l.damage() != null) {
            say("progress-damaged file=" + progress.where() + " problem=" + l.damage() + " moved-to=" + l.movedTo()
                    + " (starting over: finished tasks may run again)");
            return;
        }
        Progress.State s = l.state();
        if (s == null) {
            return;
        }
        if (!settings.job().equals(s.job()) || s.tasks().size() != settings.tasks() || s.services().size() != settings.online()) {
            throw new IllegalArgumentException("option --state: " + progress.where() + " holds the progress of job " + s.job()
                    + " with " + s.tasks().size() + " tasks and " + s.services().size() + " service slots, not of job "
                    + settings.job() + " with " + settings.tasks() + " and " + settings.online()
                    + "; give another --state, or remove it to start over");
        }
        board = TaskBoard.of(settings.retries(), s.tasks());
        services = TaskBoard.of(Integer.MAX_VALUE, s.services());
        servicesToVerify = true;
        say("resumed job=" + settings.job() + " done=" + board.succeeded() + "/" + board.size() + " running="
                + board.running() + " failed=" + board.failed().size() + " (from " + progress.where() + ")");
    }

    /** The job as the first full request must say it: the tasks not finished, and the service. */
    public List<JobSpec> jobs() {
        // a job whose tasks are all done wants nothing more: its service is not asked for again
        return List.of(job(board.unfinished(), board.complete() ? 0 : settings.online()));
    }

    /** The job with {@code desired} task slots and {@code svc} service slots. */
    JobSpec job(int desired, int svc) {
        UnitSpec u = UnitSpec.builder(UNIT).slot(settings.slot()).desired(desired).build();
        if (settings.online() == 0) {
            return new JobSpec(settings.job(), settings.group(), settings.user(), 0, false, List.of(u));
        }
        UnitSpec s = UnitSpec.builder(SERVICE).slot(settings.slot()).kind(UnitKind.ONLINE).desired(svc).build();
        // the service first: its few slots are granted before the batch takes the rest
        return new JobSpec(settings.job(), settings.group(), settings.user(), 0, false, List.of(s, u));
    }

    /** Starts running the job through {@code c} (connected, with {@link #jobs()} in its first request); on the loop. */
    public void start(JobMasterClient c) {
        client = c;
        say("submitted job=" + settings.job() + " tasks=" + settings.tasks()
                + (settings.online() > 0 ? " online=" + settings.online() : ""));
        scheduleVerify(); // also for a job master started again with its tasks done: it asks about its services' ends
        if (board.complete()) {
            finish();
            return;
        }
        fill(); // slots the master granted the job of the first request before this client was handed over
    }

    public CompletableFuture<Outcome> outcome() {
        return outcome;
    }

    TaskBoard board() {
        return board;
    }

    /** Where the batch stands, in words: {@code done=D/N running=R failed=F}. */
    public String status() {
        return "done=" + board.succeeded() + "/" + board.size() + " running=" + board.running() + " failed=" + board.failed().size();
    }

    /** Stops its timer (the process ends). */
    public void stop() {
        verifyTimer.cancel();
    }

    // --- callbacks (on the client's loop) -----------------------------------------------------------

    /** Slots changed: the work is fitted to what the client holds now (not to this callback's numbers, which may be older). */
    @Override
    public void placementChanged(UnitId u, String node, String endpoint, int oldSlots, int newSlots) {
        if (ending != null) {
            endIfReleased();
            return;
        }
        fill();
    }

    @Override
    public void workerExited(UnitId u, String node, int slot, int exitCode) {
        if (u.equals(service)) {
            serviceEnded(node, slot, exitCode);
        } else if (u.equals(unit)) {
            taskEnded(node, slot, exitCode);
        }
    }

    @Override
    public void nodeChanged(String node, String state) {
        say("node node=" + node + " state=" + state);
        if (!Hint.NodeState.LOST.equals(state) || done()) {
            return;
        }
        if (ending != null) {
            // a cancelled job's service workers on a silent node are waited for like any whose agent
            // does not answer (unanswered): its agent stops them when it returns only if the master
            // that cancelled still runs; one that fails over first makes the agent's cap a job of an
            // absent job master, which it keeps (docs/recovery.md, "Ending a job"; kit seed 7831)
            return;
        }
        // Its offline slots were taken back and are granted again elsewhere: the tasks there run
        // again (not charged a retry). Its service slots are kept for it: the workers there go on.
        int lost = 0;
        for (Map.Entry<Integer, String> e : board.runningWorkers().entrySet()) {
            if (node.equals(e.getValue())) {
                board.lost(e.getKey());
                taskSince.remove(e.getKey());
                lost++;
                say("lost task=" + e.getKey() + " node=" + node + " (its node was declared lost; it runs again elsewhere)");
            }
        }
        if (lost > 0) {
            save();
            progress();
            fill();
        }
    }

    @Override
    public void resynced(long masterIncarnation) {
        say("resynced master-incarnation=" + masterIncarnation + " running=" + board.running());
        endsAhead.clear(); // a new master's full hint says what the units hold
        if (ending != null) {
            endIfReleased();
        }
        servicesToVerify = true;
        troubleSince = -1;
        fill();
    }

    @Override
    public void linkFailed(LinkException failure) {
        long now = loop.now();
        if (troubleSince < 0) {
            troubleSince = now;
            err.accept("granary-jobmaster: " + failure.getMessage() + " (riding it out for up to "
                    + settings.patience().toSeconds() + " s, --patience)");
        } else if (now - troubleSince > settings.patience().toMillis() && !outcome.isDone()) {
            boolean token = failure.kind() == LinkException.Kind.UNAUTHORIZED;
            complete(new Outcome(token ? Main.TOKEN_REFUSED : Main.UNREACHABLE, (token ? "the master refused the token of job-master/"
                    + settings.id() : "the master at " + Main.masters(settings) + " was unreachable") + " for "
                    + settings.patience().toSeconds() + " s: " + failure.getMessage()));
        }
    }

    @Override
    public void linkRestored() {
        troubleSince = -1;
    }

    /** The master started this job master again elsewhere (it is restartable): this one must stop. */
    @Override
    public void fenced(LinkException why) {
        say("fenced " + why.getMessage());
        complete(new Outcome(Main.FENCED, "job master " + settings.id() + " was declared lost and started again elsewhere;"
                + " this incarnation exits: " + why.getMessage()));
    }

    // --- ends ---------------------------------------------------------------------------------------

    private void taskEnded(String node, int slot, int code) {
        if (done()) {
            return;
        }
        if (!board.isCurrent(slot, node)) {
            boolean known = endsAhead.arrived(node, slot);
            if (board.succeededEarlier(slot, code)) {
                // an earlier run of a task that was started again (its end was in doubt) succeeded: it is done
                say("finished task=" + board.workerOf(slot) + " node=" + node + " slot=" + slot + " code=0 (an earlier run)");
                save();
                progress();
                if (board.complete()) {
                    finish();
                    return;
                }
            }
            // A late or repeated end. Unless it stopped (its slot went with the cap) or its end was known
            // already from its agent, the master lowered the unit's desire for it, which no task's end
            // accounts for: ask again, or a task that waits now or later never gets its slot. (Asked for
            // more than needed, the spare slot is given back when nothing waits.)
            if (!known && code != Heartbeat.STOPPED) {
                wantMore(unit, 1);
            }
            fill();
            return;
        }
        int t = board.workerOf(slot);
        taskSince.remove(t);
        if (code == Heartbeat.STOPPED || code == Heartbeat.EXIT_UNKNOWN) {
            // Stopped by its agent (its slot was taken back with the cap), or ended while nobody
            // watched: whether it succeeded is unknown; it runs again and that is not a retry.
            board.lost(t);
            say("lost task=" + t + " node=" + node + " slot=" + slot + " code=" + code + " (stopped by its agent, or its end"
                    + " was not recorded): it runs again");
            if (code == Heartbeat.EXIT_UNKNOWN) {
                wantMore(unit, 1); // the master released its slot and lowered the desire, as for any end but a stop
            }
        } else if (code == Heartbeat.NOT_STARTED && notStarted.merge(t, 1, Integer::sum) <= NOT_STARTED_LIMIT) {
            // Its node could not start it (the agent says why in its log and health): not the task's
            // fault. It runs again, not as a retry, and the node counts against this job's blacklist.
            board.lost(t);
            say("not-started task=" + t + " node=" + node + " slot=" + slot + ": its node could not start it; it runs again");
            wantMore(unit, 1);
            judged(node, true);
        } else {
            TaskBoard.Result r = board.ended(slot, node, code);
            say("finished task=" + t + " node=" + node + " slot=" + slot + " code=" + code);
            if (r == TaskBoard.Result.RETRY) {
                say("retry task=" + t + " attempt=" + (board.attempts(t) + 1) + "/" + (settings.retries() + 1));
                wantMore(unit, 1);
            }
            judged(node, code != 0);
        }
        save();
        progress();
        if (board.complete()) {
            finish();
        } else {
            fill();
        }
    }

    /** A task ended on {@code node}, {@code failed} or not: the job's blacklist counts it. */
    private void judged(String node, boolean failed) {
        keptOff.ended(node, failed, loop.now());
        avoidNow();
    }

    /** Tells the master the nodes this job keeps off now, if they changed (a node added, or its time over). */
    private void avoidNow() {
        if (client != null && !finishing) {
            keptOff.tell(client, loop.now());
        }
    }

    /** A service worker ended: it is started again in a new slot (a service runs until the job is done). */
    private void serviceEnded(String node, int slot, int code) {
        if (done() || !services.isCurrent(slot, node)) {
            return;
        }
        int s = services.workerOf(slot);
        if (finishing) {
            services.lost(s); // stopped by the cancel: one fewer to wait for
            save();
            say("service-stopped service=" + s + " node=" + node + " slot=" + slot + " code=" + code);
            endIfReleased();
            return;
        }
        services.lost(s);
        serviceSince.remove(s);
        say("service-exited service=" + s + " node=" + node + " slot=" + slot + " code=" + code);
        if (code != Heartbeat.STOPPED) {
            wantMore(service, 1);
        }
        save();
        fill();
    }

    /** The job is done: with a service, the job is cancelled (its workers stopped) before the outcome. */
    private void finish() {
        if (finishing || done()) {
            return; // done already: superseded by a later incarnation, which runs (and ends) the job now
        }
        finishing = true;
        List<Integer> failed = board.failed();
        Outcome o = failed.isEmpty() ? new Outcome(Main.SUCCEEDED, null) : new Outcome(Main.TASKS_FAILED, "job "
                + settings.job() + ": " + failed.size() + " of " + board.size() + " tasks failed (tasks " + failed + ")");
        if (settings.online() == 0) {
            complete(o);
            return;
        }
        say("cancelling job=" + settings.job()); // its services may stop from now on
        client.cancel(settings.job()).whenComplete((v, ex) -> {
            if (ex == null) {
                say("cancelled job=" + settings.job() + " service=" + settings.online());
                ending = o; // done once the slots are gone and the service workers ended (endIfReleased)
                loop.schedule(settings.patience().toMillis(), () -> complete(o));
                endIfReleased();
            } else if (cause(ex) instanceof LinkException le && le.kind() == LinkException.Kind.FENCED) {
                // a later incarnation runs the job now (it may not even know it is done): this one
                // leaves the job and its progress to it
                fenced(le);
            } else {
                err.accept("granary-jobmaster: cannot cancel the service of job " + settings.job() + ": " + cause(ex).getMessage());
                complete(o);
            }
        });
    }

    /** The outcome once the cancelled job holds no slot any more, or null while the job runs. */
    private Outcome ending;

    /**
     * Done once the cancelled job holds no slot and every service worker it ran reported its end:
     * a master that dies between its answer to the cancel and the withdrawals reaching the agents
     * hears of the cancel again from the full request this job master sends its successor, which it
     * does only while it runs (docs/recovery.md, "Ending a job").
     */
    private void endIfReleased() {
        if (ending != null && !done() && services.running() == 0
                && client.holdings().keySet().stream().noneMatch(u -> u.job().equals(settings.job()))) {
            say("released job=" + settings.job());
            complete(ending);
        }
    }

    private void complete(Outcome o) {
        verifyTimer.cancel();
        outcome.complete(o);
    }

    private boolean done() {
        return outcome.isDone();
    }

    // --- asking the agents ---------------------------------------------------------------------------

    private void scheduleVerify() {
        if (!settings.verify().isZero() && !done()) {
            verifyTimer = loop.schedule(settings.verify().toMillis(), () -> {
                verify();
                scheduleVerify();
            });
        }
    }

    /**
     * Asks the agents about every task believed running for at least {@code --verify} (and those
     * a restart left in doubt) and, after a restart, about the service workers — but only while a
     * master answers (docs/recovery.md, "Exits that never arrive").
     */
    void verify() {
        if (done() || client == null || !client.masterAnswers()) {
            return; // with no master answering, nothing is launched again on a guess
        }
        if (finishing) {
            // A cancelled job's service workers whose ends did not come (a master died with them):
            // their agents say (a probe starts nothing the withdrawal took the cap of).
            if (ending != null) {
                services.runningWorkers().forEach((s, node) -> {
                    String endpoint = client.endpoint(node);
                    if (endpoint != null && !endpoint.isEmpty()) {
                        ask(endpoint, node, plans.service(s, services.slot(s)), true);
                    } else {
                        unanswered(node, s); // nobody to ask (a restarted job master whose hints no longer name the node)
                    }
                });
            }
            return;
        }
        long oldEnough = loop.now() - settings.verify().toMillis();
        if (endsAhead.forgetOlderThan(oldEnough - settings.verify().toMillis())) {
            fill(); // a master that died with those exits left their slots held: they are free
        }
        wantEnough();
        avoidNow(); // a node whose time on the blacklist is over is offered again
        for (Map.Entry<Integer, String> e : board.runningWorkers().entrySet()) {
            int t = e.getKey();
            String endpoint = client.endpoint(e.getValue());
            if (endpoint != null && !endpoint.isEmpty() && taskSince.getOrDefault(t, Long.MIN_VALUE) <= oldEnough) {
                int slot = board.slot(t);
                taskSince.put(t, loop.now());
                ask(endpoint, e.getValue(), plans.task(t, slot), false);
            }
        }
        if (servicesToVerify) {
            boolean all = true;
            for (Map.Entry<Integer, String> e : services.runningWorkers().entrySet()) {
                String endpoint = client.endpoint(e.getValue());
                if (endpoint == null || endpoint.isEmpty()) {
                    all = false;
                    continue;
                }
                ask(endpoint, e.getValue(), plans.service(e.getKey(), services.slot(e.getKey())), true);
            }
            servicesToVerify = !all;
        }
    }

    /** Sends a launch whose run the job master is not sure of, as a probe (started at once or not at all); reads the agent's answer. */
    private void ask(String endpoint, String node, Plan.Launch l, boolean isService) {
        client.launch(endpoint, List.of(l.asProbe())).whenComplete((v, ex) -> {
            if (ex == null) {
                say("relaunched " + (isService ? "service" : "task") + "=" + index(l, isService) + " node=" + node + " slot="
                        + l.slot() + " (its agent did not know it)");
                return;
            }
            answered(node, l, isService, cause(ex), true);
        });
    }

    /**
     * What an agent said of a launch it did not start: it runs (adopted), it ended (its end, as if
     * the hint had brought it), or something else (it runs again elsewhere). In doubt (no answer):
     * left as it is, asked about again later.
     */
    private void answered(String node, Plan.Launch l, boolean isService, Throwable why, boolean probe) {
        TaskBoard b = isService ? services : board;
        if (done() || !b.isCurrent(l.slot(), node)) {
            return;
        }
        int i = b.workerOf(l.slot());
        String what = (isService ? "service=" : "task=") + i + " node=" + node;
        if (why instanceof InvalidRequestException ire) {
            if (LaunchAnswers.running(ire.problems())) {
                if (!probe || isService) {
                    say("adopted " + what + " slot=" + l.slot());
                }
                return;
            }
            OptionalInt ended = LaunchAnswers.endedWith(ire.problems());
            if (ended.isPresent()) {
                say("ended " + what + " slot=" + l.slot() + " code=" + ended.getAsInt() + " (its agent kept its end)");
                if (ended.getAsInt() != Heartbeat.STOPPED) {
                    // its slot is released when the master hears of the end (a stop's went with its cap)
                    endsAhead.ended(node, l.slot(), loop.now(), !LaunchAnswers.endReported(ire.problems()));
                }
                workerExited(isService ? service : unit, node, l.slot(), ended.getAsInt());
                return;
            }
            if (LaunchAnswers.notStarted(ire.problems()) || finishing) {
                // it does not run there, and the agent keeps nothing of it: it runs again (not a retry)
                say("not-running " + what + " slot=" + l.slot() + " (" + ire.problems().get(0).message() + ")");
                b.lost(i);
                (isService ? serviceSince : taskSince).remove(i);
                save();
                fill();
                endIfReleased();
                return;
            }
            refused(node, i, isService, ire.getMessage());
            return;
        }
        if (why instanceof LinkException le && le.kind() == LinkException.Kind.UNAUTHORIZED) {
            refused(node, i, isService, le.getMessage());
            return;
        }
        if (finishing && isService) {
            unanswered(node, i);
            return;
        }
        err.accept("granary-jobmaster: no answer from node " + node + " about " + what + ": " + why.getMessage()
                + " (asked again later)");
    }

    /**
     * A cancelled job's service worker on {@code node} whose end could not be learned this round: it
     * is waited for, up to {@code --patience} after the cancel. Ending before would leave nobody to
     * tell a master that fails over meanwhile that the job is over: the worker's agent, back with its
     * cap, would make it a job of an absent job master, which the master keeps (kit seed 3207).
     */
    private void unanswered(String node, int s) {
        if (unansweredAtEnd.add(s)) {
            say("waiting service=" + s + " node=" + node + " (its agent does not answer; its end is waited for up to "
                    + settings.patience().toSeconds() + " s after the cancel)");
        }
    }

    /** The cancelled job's service workers whose end could not be learned yet (said once each). */
    private final java.util.Set<Integer> unansweredAtEnd = new java.util.HashSet<>();

    /** The agent refused a launch for another reason: the worker waits again, its slot goes back and as many are asked for. */
    private void refused(String node, int i, boolean isService, String why) {
        TaskBoard b = isService ? services : board;
        UnitId u = isService ? service : unit;
        err.accept("granary-jobmaster: node " + node + " refused " + (isService ? "service " : "task ") + i + ": " + why
                + "; giving its slot back");
        b.lost(i);
        (isService ? serviceSince : taskSince).remove(i);
        save();
        give(u, node, 1);
        wantMore(u, 1);
    }

    // --- work ------------------------------------------------------------------------------------------

    /**
     * Launches waiting tasks into free slots, node by node, as the client holds them now; gives back
     * task slots no task will use, and service slots beyond the service's size (an agent that came
     * back with slots the master did not know of: the master keeps them and lets the job master decide).
     */
    private void fill() {
        if (done() || finishing || client == null) {
            return; // done, or not started: start() fills
        }
        for (Map.Entry<String, Integer> e : client.placements(unit).entrySet()) {
            String node = e.getKey();
            String endpoint = client.endpoint(node);
            if (endpoint == null || endpoint.isEmpty()) {
                continue; // slots kept for an agent that has not come back yet: nothing to plan there
            }
            int free = e.getValue() - board.runningOn(node) - endsAhead.held(node);
            if (free > 0 && keptOff.blacklisted(node, loop.now())) {
                // kept off: its idle slots go back, and as many are asked for elsewhere
                give(unit, node, free);
                wantMore(unit, free);
                continue;
            }
            List<Integer> batch = new ArrayList<>();
            for (Integer t; batch.size() < free && (t = board.take()) != null; ) {
                batch.add(t);
            }
            if (!batch.isEmpty()) {
                launch(node, endpoint, board, batch, false);
            } else if (free > 0 && board.waiting() == 0) {
                give(unit, node, free);
            }
        }
        int spare = client.placements(service).values().stream().mapToInt(Integer::intValue).sum() - services.size();
        for (Map.Entry<String, Integer> e : client.placements(service).entrySet()) {
            String node = e.getKey();
            String endpoint = client.endpoint(node);
            if (endpoint == null || endpoint.isEmpty()) {
                continue;
            }
            int free = e.getValue() - services.runningOn(node);
            List<Integer> batch = new ArrayList<>();
            for (Integer s; batch.size() < free && (s = services.take()) != null; ) {
                batch.add(s);
            }
            if (!batch.isEmpty()) {
                launch(node, endpoint, services, batch, true);
            } else if (free > 0 && spare > 0 && services.waiting() == 0) {
                int back = Math.min(free, spare);
                spare -= back;
                give(service, node, back);
            }
        }
    }

    /**
     * The desire never falls below the work left: every task not finished and every service slot.
     * The exits keep the count right one by one; this mends what they cannot (an exit counted twice
     * through a restart, one of a slot taken back elsewhere), so that no waiting task waits forever.
     */
    private void wantEnough() {
        int tasksLeft = board.unfinished();
        int held = client.placements(unit).values().stream().mapToInt(Integer::intValue).sum();
        boolean starved = board.waiting() > 0 && heldAtLastVerify >= 0 && held <= heldAtLastVerify;
        heldAtLastVerify = held;
        if (starved && client.desired(unit) >= 0) {
            // Tasks wait and no slot came since the last round: say again what is wanted, whatever
            // this side believes the master has (an exit counted twice through a restart lowers it
            // there and not here). Never below what the unit holds: the master refuses that.
            client.desire(unit, Math.max(tasksLeft, held));
        } else if (board.waiting() > 0 && client.desired(unit) >= 0 && client.desired(unit) < tasksLeft) {
            client.desire(unit, tasksLeft).whenComplete((v, ex) -> {
                if (ex != null && cause(ex) instanceof InvalidRequestException && !finishing) {
                    client.submit(job(board.unfinished(), settings.online()));
                }
            });
        }
        if (settings.online() > 0 && services.waiting() > 0 && client.desired(service) >= 0
                && client.desired(service) < services.size()) {
            client.desire(service, services.size());
        }
    }

    /** Launches {@code batch} on {@code node}: each a new run in a new slot, written down before the plan leaves. */
    private void launch(String node, String endpoint, TaskBoard b, List<Integer> batch, boolean isService) {
        List<Plan.Launch> launches = new ArrayList<>();
        for (int i : batch) {
            int slot = b.launch(i, node);
            (isService ? serviceSince : taskSince).put(i, loop.now());
            launches.add(isService ? plans.service(i, slot) : plans.task(i, slot));
        }
        save();
        if (done()) {
            return; // superseded: a later incarnation runs the job
        }
        for (Plan.Launch l : launches) {
            say("launched " + (isService ? "service" : "task") + "=" + index(l, isService) + " node=" + node + " slot=" + l.slot());
        }
        client.launch(endpoint, launches).whenComplete((v, ex) -> {
            if (ex == null) {
                return;
            }
            Throwable why = cause(ex);
            if (why instanceof InvalidRequestException ire && launches.size() > 1) {
                // A plan is taken or refused whole: read each launch's own problems.
                for (int k = 0; k < launches.size(); k++) {
                    List<Problem> own = WorkerPlans.problemsOf(ire.problems(), k);
                    Plan.Launch l = launches.get(k);
                    if (own.isEmpty()) {
                        ask(endpoint, node, l, isService); // refused only with the others: send it alone
                    } else {
                        answered(node, l, isService, new InvalidRequestException(own), false);
                    }
                }
                return;
            }
            for (Plan.Launch l : launches) {
                answered(node, l, isService, why, false);
            }
        });
    }

    /** Gives back {@code slots} slots on {@code node} (the unit then wants that many fewer). */
    private void give(UnitId u, String node, int slots) {
        say("giving-back unit=" + u + " node=" + node + " slots=" + slots);
        client.release(u, node, slots).whenComplete((v, ex) -> {
            if (ex != null) {
                err.accept("granary-jobmaster: cannot give back " + slots + " slots on node " + node + ": " + cause(ex).getMessage());
            }
        });
    }

    /** Wants {@code n} more slots; if the master ended the job meanwhile (nothing was wanted), submits it again. */
    private void wantMore(UnitId u, int n) {
        if (finishing) {
            return; // the job is done: a late end asks for nothing (nor submits the cancelled job again)
        }
        int desired = Math.max(0, client.desired(u)) + n;
        client.desire(u, desired).whenComplete((v, ex) -> {
            Throwable why = ex == null ? null : cause(ex);
            if (why instanceof InvalidRequestException && !finishing) {
                // the master ended the job meanwhile (nothing was wanted): submitted again; not once it is done here
                client.submit(job(board.unfinished(), settings.online()));
            } else if (why != null) {
                err.accept("granary-jobmaster: cannot ask for " + n + " more slots: " + why.getMessage());
            }
        });
    }

    private int index(Plan.Launch l, boolean isService) {
        return (isService ? services : board).workerOf(l.slot());
    }

    /** Writes the progress (before a launch leaves, after an end); a failure is said and the next change tries again. */
    private void save() {
        if (progress == null) {
            return;
        }
        try {
            progress.store(settings.job(), client == null ? 0 : client.incarnation(), board, services);
        } catch (IOException ex) {
            err.accept("granary-jobmaster: cannot write the progress to " + progress.where() + ": " + ex.getMessage());
        } catch (Progress.Superseded ex) {
            say("superseded " + ex.getMessage());
            complete(new Outcome(Main.FENCED, "job master " + settings.id() + " was started again elsewhere: " + ex.getMessage()));
        }
    }

    /**
     * The run is over for good: the progress goes, and the client's hints (every checkpoint in the
     * directory), so that a later run of the same job starts afresh.
     */
    void forgetProgress(Disk state) {
        try {
            state.delete(Progress.NAME);
            for (String checkpoint : state.list(".checkpoint")) {
                state.delete(checkpoint);
            }
        } catch (IOException ex) {
            err.accept("granary-jobmaster: cannot remove " + progress.where() + ": " + ex.getMessage());
        }
    }

    private void progress() {
        say("progress job=" + settings.job() + " done=" + board.succeeded() + "/" + board.size() + " running="
                + board.running() + " failed=" + board.failed().size());
    }

    /** What a failed future failed with. */
    static Throwable cause(Throwable ex) {
        return ex instanceof CompletionException && ex.getCause() != null ? ex.getCause() : ex;
    }

    private void say(String line) {
        out.accept(line);
    }
}
