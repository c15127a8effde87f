package granary.conformance;

import granary.protocol.link.Loop;
import java.util.ArrayList;
import java.util.List;

/**
 * One simulated process's {@link Loop}: its tasks run on the world's single thread at moments of the
 * world's manual clock, so every run of a seed is the same. A process can be killed (its tasks never
 * run: memory lost) or paused, as SIGSTOP does (its tasks wait and run in order when it resumes).
 * A task that throws is an internal error of the shipped code: a violation.
 */
final class SimLoop implements Loop {

    private final World world;
    private final String owner;
    private boolean alive = true;
    private boolean paused;
    private final List<Runnable> deferred = new ArrayList<>();

    SimLoop(World world, String owner) {
        this.world = world;
        this.owner = owner;
    }

    @Override
    public long now() {
        return world.now();
    }

    @Override
    public void execute(Runnable task) {
        world.later(world.now(), () -> run(task));
    }

    @Override
    public Timer schedule(long delayMillis, Runnable task) {
        boolean[] cancelled = {false};
        world.later(world.now() + Math.max(0, delayMillis), () -> {
            if (!cancelled[0]) {
                run(task);
            }
        });
        return () -> cancelled[0] = true;
    }

    private void run(Runnable task) {
        if (!alive) {
            return;
        }
        if (paused) {
            deferred.add(task);
            return;
        }
        try {
            task.run();
        } catch (RuntimeException | Error ex) {
            world.internalError(owner, ex);
        }
    }

    boolean alive() {
        return alive;
    }

    boolean paused() {
        return paused;
    }

    /** The process dies: nothing of it runs again. */
    void kill() {
        alive = false;
        deferred.clear();
    }

    /** SIGSTOP: its tasks wait. */
    void pause() {
        paused = true;
    }

    /** SIGCONT: what waited runs, in order. */
    void resume() {
        if (!paused) {
            return;
        }
        paused = false;
        List<Runnable> due = new ArrayList<>(deferred);
        deferred.clear();
        for (Runnable r : due) {
            world.later(world.now(), () -> run(r));
        }
    }

    String owner() {
        return owner;
    }
}
