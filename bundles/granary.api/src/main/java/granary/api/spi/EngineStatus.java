package granary.api.spi;

import granary.api.model.Resources;
import java.util.List;
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
 * @param held          why the engine holds scheduling, one reason per selected policy whose configuration
 *                      was refused and of which no instance is installed; empty when it schedules
 *                      (docs/operations.md, "Fail closed")
 * @param problems      per policy name: its last refused configuration, while it has one
 */
public record EngineStatus(long now, int nodes, Resources capacity, Resources free, int jobs, int waitingUnits,
                           long waitingSlots, long grantedSlots, long decisions, Map<String, String> policies,
                           List<String> held, Map<String, String> problems) {

    public EngineStatus {
        policies = Map.copyOf(policies);
        held = List.copyOf(held);
        problems = Map.copyOf(problems);
    }

    /** {@code ok} while the engine schedules, {@code held} while a configured policy is missing. */
    public String health() {
        return held.isEmpty() ? "ok" : "held";
    }
}
