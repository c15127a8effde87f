package granary.jobmaster;

import java.util.Set;
import java.util.function.Consumer;

import granary.api.model.UnitId;
import granary.client.JobMasterClient;
import granary.client.NodeBlacklist;

/**
 * The nodes one job keeps its tasks off (docs/agent.md, "Blacklisting a node for one job"): its
 * blacklist counts each task's end by node, and the master is told the nodes to keep off when they
 * change — a node added, or its time on the list over.
 */
final class KeptOff {

    private final NodeBlacklist badNodes;
    private final Settings settings;
    private final UnitId unit;
    private final Consumer<String> say;
    private final Consumer<String> err;
    /** The nodes the master was last asked to keep the tasks off; null: to be said again. */
    private Set<String> avoiding = Set.of();

    KeptOff(Settings settings, UnitId unit, Consumer<String> say, Consumer<String> err) {
        this.badNodes = new NodeBlacklist(settings.blacklistAfter(), settings.blacklistFor());
        this.settings = settings;
        this.unit = unit;
        this.say = say;
        this.err = err;
    }

    /** A task ended on {@code node}, {@code failed} or not, at {@code now}. */
    void ended(String node, boolean failed, long now) {
        if (badNodes.ended(node, failed, now)) {
            say.accept("blacklisted node=" + node + " for=" + settings.blacklistFor().toSeconds() + "s: "
                    + settings.blacklistAfter() + " tasks in a row failed there");
        }
    }

    /** True if the job keeps off {@code node} at {@code now}. */
    boolean blacklisted(String node, long now) {
        return badNodes.blacklisted(node, now);
    }

    /** Tells the master through {@code client} the nodes kept off at {@code now}, if they changed since it was last told. */
    void tell(JobMasterClient client, long now) {
        Set<String> nodes = badNodes.nodes(now);
        if (nodes.equals(avoiding)) {
            return;
        }
        avoiding = nodes;
        client.avoid(unit, nodes).whenComplete((v, ex) -> {
            if (ex != null) {
                avoiding = null; // said again at the next change or check
                err.accept("granary-jobmaster: cannot keep the job off nodes " + nodes + ": " + SampleJobMaster.cause(ex).getMessage());
            }
        });
    }
}
