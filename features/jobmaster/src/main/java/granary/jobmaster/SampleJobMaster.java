package granary.jobmaster;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.client.JobMasterClient;
import granary.client.Listener;
import granary.protocol.Plan;
import granary.protocol.link.LinkException;
import java.io.PrintStream;
import java.util.ArrayList;
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
 */
final class SampleJobMaster implements Listener {

    static final String UNIT = "tasks";

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
    private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    private volatile JobMasterClient client;
    private long unreachableSince;

    SampleJobMaster(Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
        this.unit = new UnitId(settings.job(), UNIT);
        this.board = new TaskBoard(settings.tasks(), settings.retries());
    }

    /** The job as submitted: one unit of {@code desired} slots. */
    JobSpec job(int desired) {
        UnitSpec u = UnitSpec.builder(UNIT).slot(settings.slot()).desired(desired).build();
        return new JobSpec(settings.job(), settings.group(), settings.user(), 0, false, List.of(u));
    }

    /** Submits the job through {@code c}; from here on the callbacks drive the run. */
    void start(JobMasterClient c) {
        client = c;
        c.submit(job(settings.tasks()));
        say("submitted job=" + settings.job() + " tasks=" + settings.tasks());
    }

    CompletableFuture<Outcome> outcome() {
        return outcome;
    }

    TaskBoard board() {
        return board;
    }

    // --- callbacks --------------------------------------------------------------------------

    @Override
    public void placementChanged(UnitId u, String node, String endpoint, int oldSlots, int newSlots) {
        if (!u.equals(unit)) {
            return;
        }
        if (newSlots == 0) {
            nodes.remove(node);
        } else {
            nodes.put(node, new Node(endpoint, newSlots));
        }
        fill();
    }

    @Override
    public void workerExited(UnitId u, String node, int slot, int exitCode) {
        if (!u.equals(unit)) {
            return;
        }
        TaskBoard.Result r = board.ended(slot, node, exitCode);
        if (r == TaskBoard.Result.UNKNOWN) {
            return;
        }
        say("finished task=" + slot + " node=" + node + " code=" + exitCode);
        if (r == TaskBoard.Result.RETRY) {
            say("retry task=" + slot + " attempt=" + (board.attempts(slot) + 1) + "/" + (settings.retries() + 1));
            wantMore(1);
        }
        progress();
        if (board.complete()) {
            List<Integer> failed = board.failed();
            outcome.complete(failed.isEmpty() ? new Outcome(0, null) : new Outcome(1, "job " + settings.job() + ": "
                    + failed.size() + " of " + board.tasks() + " tasks failed (tasks " + failed + ")"));
            return;
        }
        fill();
    }

    @Override
    public void resynced(long masterIncarnation) {
        say("resynced master-incarnation=" + masterIncarnation + " running=" + board.running());
    }

    @Override
    public void linkFailed(LinkException failure) {
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
            outcome.complete(new Outcome(Main.UNREACHABLE, "the master at " + settings.master() + " was unreachable for "
                    + settings.patience().toSeconds() + " s: " + failure.getMessage()));
        }
    }

    @Override
    public void linkRestored() {
        unreachableSince = 0;
    }

    // --- work -------------------------------------------------------------------------------

    /** Launches waiting tasks into free slots, node by node; gives back slots no task will use. */
    private void fill() {
        if (outcome.isDone()) {
            return;
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
                give(node, free);
            }
        }
    }

    private void launch(String node, String endpoint, List<Integer> batch) {
        List<Plan.Launch> launches = new ArrayList<>();
        for (int t : batch) {
            launches.add(new Plan.Launch(unit, t, List.of("/bin/sh", "-c", settings.command()),
                    Map.of("GRANARY_JOB", settings.job(), "GRANARY_TASK", Integer.toString(t),
                            "GRANARY_TASKS", Integer.toString(settings.tasks())), settings.workdir()));
        }
        try {
            client.launch(endpoint, launches);
        } catch (RuntimeException ex) {
            System.err.println("granary-jobmaster: cannot launch on node " + node + " (" + endpoint + "): " + ex.getMessage()
                    + "; giving its slots back");
            for (int i = batch.size() - 1; i >= 0; i--) {
                board.putBack(batch.get(i));
            }
            give(node, batch.size());
            wantMore(batch.size());
            return;
        }
        for (int t : batch) {
            board.started(t, node);
            say("launched task=" + t + " node=" + node);
        }
    }

    /** Gives back {@code slots} slots on {@code node} (the unit then wants that many fewer). */
    private void give(String node, int slots) {
        try {
            client.release(unit, node, slots);
        } catch (RuntimeException ex) {
            System.err.println("granary-jobmaster: cannot give back " + slots + " slots on node " + node + ": " + ex.getMessage());
        }
    }

    /** Wants {@code n} more slots; if the master ended the job meanwhile (nothing was wanted), submits it again. */
    private void wantMore(int n) {
        int desired = Math.max(0, client.desired(unit)) + n;
        try {
            client.desire(unit, desired);
        } catch (InvalidRequestException ex) {
            client.submit(job(desired));
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
