package granary.policy.quota.api;

/** One group in a quota report: its funding in the current slice, its usage and state. */
public record GroupQuotaRow(String group, int groupId, Quota min, Quota max, Quota used, QuotaState state) {
}
