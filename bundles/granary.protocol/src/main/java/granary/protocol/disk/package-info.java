/**
 * What a peer keeps on disk to survive its restart: the {@link granary.protocol.disk.Disk} seam
 * (files of a directory in a process, a faulty simulated disk in the conformance kit) and
 * {@link granary.protocol.disk.Sealed} files that say when they are torn or changed
 * (docs/recovery.md).
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package granary.protocol.disk;
