/**
 * Granary's wire protocol: the messages that agents, job masters and the master exchange, the
 * {@link granary.protocol.Envelope} around each of them, the strict JSON form of both
 * ({@link granary.protocol.WireCodec}) and the per-peer {@link granary.protocol.Session} that
 * applies each message once. Plain Java: no transport, no threads. See docs/protocol.md.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package granary.protocol;
