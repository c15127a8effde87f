package granary.policy.quota;

import granary.policy.quota.api.Quota;
import granary.policy.quota.api.QuotaState;

/**
 * One group in a quota report: its funding in the current slice, its usage and state, the slots
 * preemption took from it and for it since the policy started, and the work the slots taken from it
 * had run ({@code preemptedWorkSeconds}, slot-seconds, each slot counted from the latest grant its unit
 * had on its node: what is lost when the newest slots there are stopped).
 */
public record GroupQuotaRow(String group, int groupId, Quota min, Quota max, Quota used, QuotaState state,
                            long preemptedFrom, long preemptedFor, double preemptedWorkSeconds) {
}
