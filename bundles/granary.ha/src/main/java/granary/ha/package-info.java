/**
 * Master high availability on ZooKeeper: {@link granary.ha.MasterElection} elects one leader among
 * the masters of a cluster, gives it a leadership epoch larger than every earlier leader's (its
 * incarnation on the wire), publishes its protocol URL, keeps its {@link granary.ha.Lease} (held
 * only while a recent round trip proves its session alive, on a monotonic clock), and tells it to
 * step down when the lease lapses or its ZooKeeper session is suspended or lost. Plain Java: no
 * OSGi API, no Curator or ZooKeeper type in the signatures (both are embedded in the bundle). See
 * docs/ha.md.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package granary.ha;
