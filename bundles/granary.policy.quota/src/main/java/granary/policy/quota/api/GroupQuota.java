package granary.policy.quota.api;

/**
 * A group's funding in one time slice: {@code GroupId}, {@code MinQuota} (guaranteed) and
 * {@code MaxQuota} (the most it may hold).
 */
public record GroupQuota(String group, int groupId, Quota min, Quota max) {
}
