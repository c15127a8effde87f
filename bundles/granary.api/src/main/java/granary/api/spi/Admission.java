package granary.api.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Extension point {@code admission} (composable): how many more slots a unit may be granted now
 * (quota limits, Drawback groups, running-job limits).
 *
 * <p>Called on the engine thread on the decision path, so it must be cheap. The engine asks
 * {@link #admitGroup} once per group before searching its queue (a {@code WAIT} skips the whole
 * group), then {@link #admit} for the unit it picked. With several admission policies the smallest
 * allowance wins. A {@code WAIT} leaves the unit waiting with the reason; nothing else changes.
 */
@ConsumerType
public interface Admission extends Policy {

    /** Whether any unit of the group may be granted now. */
    default Verdict admitGroup(GroupView group, EngineView view) {
        return Verdict.ALLOW;
    }

    /** At most how many of {@code wanted} further slots the unit may be granted now. */
    Verdict admit(UnitView unit, int wanted, EngineView view);

    /**
     * The group's guarantee and limit in force, or null if this policy sets none. The engine searches
     * a group's queue only for slots that fit {@code fillLimit() − used} when the limit is in resources, so
     * units admission would refuse for their size are never visited (docs/scheduling.md, "The fit
     * search"); the simulator measures time below the guarantee and use above the limit from it. Must
     * agree with {@link #admit}: a slot that does not fit {@code max − used} is never admitted (a lower
     * {@code fill} only narrows what freed nodes are filled with for a while).
     */
    default GroupBounds bounds(GroupView group, EngineView view) {
        return null;
    }
}
