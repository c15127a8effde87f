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
}
