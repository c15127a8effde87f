/** Hierarchical queues addressed by full path (docs/multi-tenancy.md, "Queues by full path"): the tree model and its
 * codec, which the planner and the HTTP API edit and serve. */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package granary.policy.queues.api;
