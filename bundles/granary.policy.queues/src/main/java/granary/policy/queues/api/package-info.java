/** Hierarchical queues addressed by full path (spec §10): the tree, its resolution rules, reports. */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package granary.policy.queues.api;
