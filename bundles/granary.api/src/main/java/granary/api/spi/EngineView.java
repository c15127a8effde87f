package granary.api.spi;

import java.util.Collection;
import java.util.List;

import granary.api.spi.EngineStatus;
import granary.api.spi.PolicyInfo;
import granary.api.model.UnitId;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Read access to the whole engine state, handed to policies. Live: valid on the engine thread, and
 * reflecting every decision as soon as it is made.
 */
@ProviderType
public interface EngineView {

    /** Engine time in milliseconds. */
    long now();

    ClusterView cluster();

    /** Groups that have jobs, by name. */
    Collection<? extends GroupView> groups();

    /** A group by full name, or null. */
    GroupView group(String name);

    Collection<? extends JobView> jobs();

    JobView job(String id);

    UnitView unit(UnitId id);

    /** Waiting units of a group in the current unit order (empty if none). */
    Iterable<? extends UnitView> waiting(String group);

    /** The first waiting unit of a group in the current unit order, or null: O(log) in the engine. */
    default UnitView head(String group) {
        java.util.Iterator<? extends UnitView> it = waiting(group).iterator();
        return it.hasNext() ? it.next() : null;
    }

    /** Counters and the policy in effect per extension point. */
    EngineStatus status();

    /** Installed policies, by name. */
    List<PolicyInfo> policies();

    /** The installed policy of that name (to read its reports), or null. */
    Policy policy(String name);

    /** The full group name a job naming {@code group} would wait in, by the group resolver in effect. */
    String resolveGroup(String group);
}
