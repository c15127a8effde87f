/**
 * The cluster model shared by every Granary bundle: resource vectors, nodes, jobs, schedule units,
 * the clock, and the errors that name what is wrong in an input. Depends on nothing.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.4.0")
package granary.api.model;
