package granary.api.spi;

import granary.api.model.Resources;
import java.util.Map;

/**
 * A snapshot of the engine's counters.
 *
 * @param now           engine time (ms)
 * @param nodes         nodes in the cluster
 * @param capacity      sum of capacities
 * @param free          capacity − granted
 * @param jobs          jobs not finished
 * @param waitingUnits  units with remaining desire
 * @param waitingSlots  sum of remaining desire
 * @param grantedSlots  slots granted now
 * @param decisions     grant and revoke decisions since start
 * @param policies      per extension point id: the policy in effect, or {@code waiting} (none available)
 */
public record EngineStatus(long now, int nodes, Resources capacity, Resources free, int jobs, int waitingUnits,
                           long waitingSlots, long grantedSlots, long decisions, Map<String, String> policies) {

    public EngineStatus {
        policies = Map.copyOf(policies);
    }
}
