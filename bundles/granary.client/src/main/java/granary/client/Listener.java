package granary.client;

import granary.api.model.UnitId;
import granary.protocol.link.LinkException;

/**
 * What a {@link JobMasterClient} tells its job master. Every callback runs on the client's loop,
 * in the order the changes happened, never concurrently with another callback; a callback may call
 * the client (submit, desire, launch, …), but must not wait there for the futures it gets back
 * (they complete on the same loop). A callback that throws is reported on standard error and the
 * client goes on. Every method does nothing by default.
 */
public interface Listener {

    /**
     * {@code unit} now holds {@code newSlots} slots on {@code node} (it held {@code oldSlots}); plans
     * for them go to the node's agent at {@code endpoint}. A worker's exit lowers the count by one
     * (the master released that slot), reported here before {@link #workerExited}. Also called with
     * {@code oldSlots == newSlots} when only the endpoint changed: the node's agent restarted at
     * another address.
     */
    default void placementChanged(UnitId unit, String node, String endpoint, int oldSlots, int newSlots) {
    }

    /**
     * The worker the job master launched in {@code slot} of {@code unit} on {@code node} ended with
     * {@code exitCode}. Its slot is given back and the unit's desired count is one lower already (the
     * client's {@link JobMasterClient#desired} says so too): to run it again, raise the desire. A
     * worker its agent stopped because its cap went down ({@link granary.protocol.Heartbeat#STOPPED},
     * a revocation or the job master's own release) ended through no fault of its own: its slot was
     * taken back with the cap, and the desire was not lowered.
     */
    default void workerExited(UnitId unit, String node, int slot, int exitCode) {
    }

    /**
     * The worker in {@code slot} of {@code unit} on {@code node} was killed by its memory limit (its
     * slot's memory, {@code limitMiB}; it peaked at {@code peakMiB}), as its agent reported
     * (docs/agent.md, "Isolation"). Called just before {@link #workerExited} for the same end, whose
     * code is then the kill's (137 as a shell reports it): run it again in a larger slot rather than
     * the same one.
     */
    default void workerOutOfMemory(UnitId unit, String node, int slot, long limitMiB, long peakMiB) {
    }

    /**
     * The master restarted and the client sent it every job with its current desired count again
     * (a full request). Every placement was reported as 0 just before; the master's next hint brings
     * the slots it grants now. Workers already running are not touched.
     *
     * @param masterIncarnation the master's new incarnation
     */
    default void resynced(long masterIncarnation) {
    }

    /**
     * A request or a poll of the master failed and will be tried again with a growing pause: the
     * master is unreachable, restarting ({@link LinkException.Kind#UNAUTHORIZED} while it restarts
     * with another secret, 503 while a standby takes over), or answers something unexpected. The
     * client never gives up by itself; the job master decides how long it waits.
     */
    default void linkFailed(LinkException failure) {
    }

    /**
     * The agent of {@code node}, where this job master holds slots, went silent past its timeout
     * ({@code "lost"}: its offline slots were taken back and are granted again elsewhere; its online
     * ones are kept for it and its workers may still run) or registered again ({@code "back"})
     * (docs/recovery.md, "A silent node"). The job master decides what to do about the work there.
     */
    default void nodeChanged(String node, String state) {
    }

    /**
     * The master declared this incarnation lost and started the job master again elsewhere (it gave
     * a restart spec, docs/recovery.md "Restarting a lost job master"): nothing this process sends
     * is taken any more, and the client has stopped polling. The process should exit; the new one
     * runs its jobs.
     */
    default void fenced(LinkException why) {
    }

    /** A poll of the master succeeded again after {@link #linkFailed} reported failures. */
    default void linkRestored() {
    }
}
