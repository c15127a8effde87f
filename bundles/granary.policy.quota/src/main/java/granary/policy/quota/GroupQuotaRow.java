package granary.policy.quota;

import granary.policy.quota.api.Quota;
import granary.policy.quota.api.QuotaState;

/**
 * One group in a quota report: its funding in the current slice, its usage and state, and the slots
 * preemption took from it and for it since the policy started.
 */
public record GroupQuotaRow(String group, int groupId, Quota min, Quota max, Quota used, QuotaState state,
                            long preemptedFrom, long preemptedFor) {
}
