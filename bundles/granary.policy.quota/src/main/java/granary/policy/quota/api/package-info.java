/**
 * Quota groups and the time-sliced quota table (docs/multi-tenancy.md, "The quota table"): the model, its codec and its
 * validation. The planner and the HTTP API edit and serve tables with it.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package granary.policy.quota.api;
