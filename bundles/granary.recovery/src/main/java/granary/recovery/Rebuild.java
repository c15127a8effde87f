package granary.recovery;

import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.protocol.Request;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a master rebuilds when its recovery window closes, in the order to apply it: add the
 * {@code nodes}, submit the {@code jobs} (their desired counts already lowered by what is
 * {@code awaiting}), adopt the {@code adoptions}, then tell every peer the whole truth: agents the
 * caps they keep, job masters their placements, and 0 for every {@code dropped} pair.
 *
 * @param nodes     the nodes of the agents that reported
 * @param jobs      the jobs of job masters that reported, and mock jobs for those that did not
 * @param owners    job id → the job master that runs it (also for mocks)
 * @param mocks     ids of the mock jobs: made from caps, replaced by the real request when their job master returns
 * @param adoptions grants taken on, online first
 * @param awaiting  online holdings on nodes whose agent did not report: kept for its return, not granted elsewhere
 * @param dropped   what is not taken on, with the reason
 * @param holdings  job master → the holdings it reported: every pair the rebuilt master does not
 *                  confirm is told to it as 0, whatever the reason
 * @param deferred  jobs kept out of the engine because every slot they want is held on nodes whose
 *                  agents have not returned (the engine takes no job that wants nothing): submitted,
 *                  with those slots, when such an agent returns
 */
public record Rebuild(List<NodeSpec> nodes, List<JobSpec> jobs, Map<String, String> owners, Set<String> mocks,
                      List<Adoption> adoptions, List<Adoption> awaiting, List<Dropped> dropped,
                      Map<String, List<Request.Holding>> holdings, List<JobSpec> deferred) {

    public Rebuild {
        nodes = List.copyOf(nodes);
        jobs = List.copyOf(jobs);
        owners = Map.copyOf(owners);
        mocks = Set.copyOf(mocks);
        adoptions = List.copyOf(adoptions);
        awaiting = List.copyOf(awaiting);
        dropped = List.copyOf(dropped);
        holdings = Map.copyOf(holdings);
        deferred = List.copyOf(deferred);
    }

    /** Nothing to rebuild. */
    public static Rebuild empty() {
        return new Rebuild(List.of(), List.of(), Map.of(), Set.of(), List.of(), List.of(), List.of(), Map.of(), List.of());
    }
}
