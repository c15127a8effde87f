/**
 * Strict reading of JSON documents with errors that name the source and the JSON path of every
 * problem. Used by every Granary file format (jobs, and the formats policies own).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package granary.codec.json;
