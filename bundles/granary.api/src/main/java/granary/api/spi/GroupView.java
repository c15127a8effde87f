package granary.api.spi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import granary.api.model.Resources;

import org.osgi.annotation.versioning.ProviderType;

/** A group queue (quota group, queue) as the engine sees it now. */
@ProviderType
public interface GroupView {

    /** Full name, e.g. {@code root.a.p0}. */
    String name();

    /** Resources granted to the group's units. */
    Resources used();

    /** Slots granted to the group's units. */
    long usedSlots();

    /** Units with remaining desire. */
    int waitingUnits();

    /** Sum of remaining desire. */
    long waitingSlots();

    /** Jobs of the group that hold at least one slot. */
    int runningJobs();

    /** Jobs of the group, submitted by {@code user}, that hold at least one slot. */
    int runningJobs(String user);

    /** Jobs of the group not yet finished. */
    int jobs();

    /**
     * Jobs of the group that hold at least one slot, in the order they started holding (the one
     * running longest first). Lets a policy find victims without walking the backlog.
     */
    Iterable<? extends JobView> running();

    /**
     * {@link #running()} the other way round: the job that started holding last first. Preemption
     * walks it to find the grants that have run the least.
     */
    default Iterable<? extends JobView> runningNewestFirst() {
        List<JobView> jobs = new ArrayList<>();
        running().forEach(jobs::add);
        Collections.reverse(jobs);
        return jobs;
    }
}
