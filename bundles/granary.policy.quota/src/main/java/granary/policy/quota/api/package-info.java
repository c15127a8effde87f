/**
 * Quota groups and the time-sliced quota table (spec §5): the model, its validation, and the report
 * types of a quota policy.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package granary.policy.quota.api;
