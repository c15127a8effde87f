package granary.policy.quota;

import java.util.List;

/**
 * What a quota policy reports: the slice in force, the workers of that slice (null without
 * WorkerSpans), whether preemption is on, the emergent job (or null) and how many nodes it has
 * claimed, the coming slice boundary while the lookahead acts (or null), and one row per group.
 */
public record QuotaReport(String slice, Long workers, boolean preemption, String emergent, int claimedNodes,
                          String lookaheadBoundary, List<GroupQuotaRow> groups) {

    public QuotaReport {
        groups = List.copyOf(groups);
    }
}
