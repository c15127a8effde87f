/**
 * The recovery engine, plain Java: what a master that starts empty does with what agents and job
 * masters tell it (docs/recovery.md). A {@link granary.recovery.RecoveryWindow} collects agents'
 * caps and job masters' requests and holdings, and closes into a {@link granary.recovery.Rebuild}
 * (caps trusted over holdings, holdings used only for agents that did not report, mock requests for
 * job masters that have not returned); the {@link granary.recovery.Recovered} ledger then handles
 * the peers that return late. No threads, no clock of its own: the caller passes the time.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package granary.recovery;
