/** Granary's JSON formats, read strictly with errors that name the file and the JSON path. */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package granary.codec;
