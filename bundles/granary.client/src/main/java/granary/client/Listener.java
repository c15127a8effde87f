package granary.client;

import granary.api.model.UnitId;
import granary.protocol.link.LinkException;

/**
 * What a {@link JobMasterClient} tells its job master. Every callback runs on the client's one
 * event thread, in the order the changes happened, never concurrently with another callback; a
 * callback may call the client (submit, desire, launch, …). A callback that throws is reported on
 * standard error and the client goes on. Every method does nothing by default.
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
     * client's {@link JobMasterClient#desired} says so too): to run it again, raise the desire.
     */
    default void workerExited(UnitId unit, String node, int slot, int exitCode) {
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
     * The client's poll of the master failed: {@link LinkException.Kind#UNREACHABLE} and
     * {@link LinkException.Kind#PROTOCOL} are retried with a growing pause (up to the options'
     * maximum), {@link LinkException.Kind#UNAUTHORIZED} stops the polling for good.
     */
    default void linkFailed(LinkException failure) {
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
