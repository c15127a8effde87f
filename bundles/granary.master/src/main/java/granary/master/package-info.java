/**
 * The master's side of the wire protocol (docs/protocol.md): {@link granary.master.ProtocolMaster}
 * turns agents' registrations and heartbeats into nodes and releases, job masters' requests into
 * jobs, and the engine's grants into caps (to agents) and hints (to job masters), delivered by long
 * poll. Plain Java over the {@link granary.api.event.Scheduler} service: the OSGi runtime serves it
 * through the HTTP whiteboard, tests and benchmarks through {@link granary.protocol.link.JdkHttpServer}.
 * {@link granary.master.MasterMonitor} is what monitors read of a running master (its peers, its
 * recovery state, its delivery latency); the runtime registers it as a service.
 * {@link granary.master.LeaderLease} is whether the master may act as the leader now (docs/ha.md,
 * "The lease"): the master checks it before it takes a message and before a cap or hint leaves; the
 * runtime registers it as a service for the HTTP API's writes.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.6.0")
package granary.master;
