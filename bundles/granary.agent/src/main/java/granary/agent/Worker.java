package granary.agent;

import granary.api.model.UnitId;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One worker process this agent runs: one it started, or one a previous life of the agent started
 * and this one adopted (docs/recovery.md, "Exits that never arrive").
 *
 * @param unit    the unit it belongs to
 * @param slot    its slot of that unit on this node
 * @param handle  the operating system process
 * @param process the process as started by this agent (its exit code can be read), or null for an
 *                adopted one: the operating system gives its exit code to its parent only
 * @param order   when it was started relative to the others (larger: newer); withdrawals stop the newest first
 */
record Worker(UnitId unit, int slot, ProcessHandle handle, Process process, long order) {

    /** A worker this agent started. */
    Worker(UnitId unit, int slot, Process process, long order) {
        this(unit, slot, process.toHandle(), process, order);
    }

    long pid() {
        return handle.pid();
    }

    boolean adopted() {
        return process == null;
    }

    /** Completes when the process ended. */
    CompletableFuture<?> onExit() {
        return process != null ? process.onExit() : handle.onExit();
    }

    /** The exit code once ended; {@link Workers#EXIT_UNKNOWN} for an adopted worker. */
    int exitCode() {
        return process != null ? process.exitValue() : Workers.EXIT_UNKNOWN;
    }

    void destroy() {
        handle.destroy();
    }

    void destroyForcibly() {
        handle.destroyForcibly();
    }

    boolean isAlive() {
        return handle.isAlive();
    }

    /** Waits at most {@code nanos} for the end; true if it ended. */
    boolean waitFor(long nanos) throws InterruptedException {
        try {
            onExit().get(nanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException ex) {
            return false;
        } catch (ExecutionException ex) {
            return !isAlive();
        }
    }
}
