package granary.conformance;

import granary.api.model.InvalidRequestException;
import granary.client.JobMasterClient;
import granary.jobmaster.SampleJobMaster;
import granary.jobmaster.Settings;
import granary.protocol.Program;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.link.Link;
import granary.protocol.link.LinkException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;

/**
 * One incarnation of a job master in the world: the shipped sample job master ({@link SampleJobMaster})
 * on the shipped client library ({@link JobMasterClient}), on a {@link SimLoop}, with its state
 * directory (progress and hints) on a {@link SimDisk} that outlives it.
 */
final class JobMasterProcess {

    /** What a job master of the world runs. */
    record Spec(String id, String job, int tasks, int online, long taskMillis, boolean restartable, boolean keepsState) {
    }

    /** The slot a restarted job master runs in. */
    static final granary.api.model.Resources RESTART_SLOT = granary.api.model.Resources.of(50, 256);

    final Spec spec;
    final long incarnation;
    /** Where it runs: a node (the master started it there) or a host of its own. */
    final String machine;
    final SimLoop loop;
    final SampleJobMaster jm;
    private JobMasterClient client;
    private final IntConsumer onExit;
    private final World world;
    boolean exited;
    int exitCode = -1;

    JobMasterProcess(World world, Spec spec, long incarnation, String node, SimDisk state, IntConsumer onExit) {
        this.world = world;
        this.spec = spec;
        this.incarnation = incarnation;
        this.machine = node != null ? node : "host-" + spec.id();
        this.onExit = onExit;
        this.loop = new SimLoop(world, "job master " + spec.id() + "#" + incarnation);
        List<String> args = new ArrayList<>(List.of("--master=" + World.MASTER_URL, "--token-file=unused", "--job=" + spec.job(),
                "--tasks=" + spec.tasks(), "--slot=cpu=100,mem=1024", "--command=sim-task", "--id=" + spec.id(),
                "--verify=5", "--patience=120", "--restartable=off", "--state=off"));
        if (spec.online() > 0) {
            args.add("--online=" + spec.online());
        }
        Settings s = Settings.parse(args.toArray(new String[0]));
        String who = "job master " + spec.id() + "#" + incarnation;
        this.jm = new SampleJobMaster(s, loop, spec.keepsState() ? state : null, line -> {
            world.trace(who, line);
            if (line.startsWith("cancelling job=") || line.startsWith("cancelled job=")) {
                world.jobEnded.putIfAbsent(spec.job(), world.now()); // its workers may stop from now on
            }
            if (line.startsWith("cancelled job=")) {
                world.cancelConfirmed.add(spec.id());
            }
        }, line -> world.trace(who, line));
    }

    void start() {
        loop.execute(() -> {
            try {
                jm.load();
            } catch (IOException | IllegalArgumentException ex) {
                world.violation("job master " + spec.id() + " could not read its progress: " + ex.getMessage());
                exit(2);
                return;
            }
            JobMasterClient.Options o = JobMasterClient.Options.defaults()
                    .withLink(Link.Options.defaults().withRequestTimeout(Duration.ofSeconds(2))
                            .withBackoff(Duration.ofMillis(200), Duration.ofSeconds(2)))
                    .withPollWait(Duration.ZERO).withPollPause(Duration.ofMillis(100)).withMaxPause(Duration.ofSeconds(2))
                    .withLaunchPatience(Duration.ofSeconds(3)).withConnectPatience(Duration.ofSeconds(60));
            if (spec.keepsState()) {
                o = o.withHints(world.jobMasterDisk(spec.id()));
            }
            if (spec.restartable()) {
                o = o.withRestart(new Request.Restart(new Program(List.of("sim-job-master", spec.id()), Map.of(), ""),
                        RESTART_SLOT, machine.startsWith("host-") ? null : machine));
            }
            client = JobMasterClient.start(List.of(World.MASTER_URL), spec.id(),
                    world.tokens.issue(new Sender(Role.JOB_MASTER, spec.id())), incarnation, o, jm, jm.jobs(), loop,
                    new SimTransport(world, machine));
            client.connected().whenComplete((v, ex) -> {
                if (ex == null) {
                    jm.start(client);
                    return;
                }
                Throwable why = ex instanceof java.util.concurrent.CompletionException && ex.getCause() != null ? ex.getCause() : ex;
                exit(why instanceof LinkException le && le.kind() == LinkException.Kind.FENCED ? 7
                        : why instanceof InvalidRequestException ? 6 : 4);
            });
            jm.outcome().thenAccept(out -> exit(out.code()));
        });
    }

    /** The process ends with {@code code}, as its own decision (done, failed, fenced, gave up). */
    private void exit(int code) {
        if (exited) {
            return;
        }
        exited = true;
        exitCode = code;
        jm.stop();
        if (client != null) {
            client.close();
        }
        loop.kill();
        world.jobMasterExited(this, code);
        if (onExit != null) {
            onExit.accept(code);
        }
    }

    /** Killed (kill -9, a machine gone): memory lost, no exit of its own. */
    void kill() {
        exited = true;
        loop.kill();
    }

    /** The agent stopped the slot it ran in: the process is gone with it. */
    void killedWithItsSlot() {
        kill();
    }

    boolean alive() {
        return !exited && loop.alive();
    }

    JobMasterClient client() {
        return client;
    }
}
