/** Hierarchical queues addressed by full path (spec §10): the tree model and its
 * codec, which the planner and the HTTP API edit and serve. */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package granary.policy.queues.api;
