/**
 * The failover conformance kit (docs/recovery.md, "The conformance kit"): a deterministic
 * {@link granary.conformance.World} of the real master — protocol side, recovery engine and
 * scheduler engine on a manual clock — with simulated agents and job masters that speak the real
 * wire protocol over an in-process {@link granary.conformance.Wire} which drops, delays, duplicates,
 * reorders and partitions messages; the 17 named {@link granary.conformance.Cases}, seeded random
 * {@link granary.conformance.Schedules}, and the {@link granary.conformance.Invariants} checked
 * after every step. A failing seed is a reproduction.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package granary.conformance;
