/**
 * The shared test kit: what the tests of the policy, demo and simulator bundles share.
 *
 * <ul>
 *   <li>Builders: {@link granary.testkit.Clusters} (nodes with rooms, labels, capacity),
 *       {@link granary.testkit.Jobs} (jobs and units: slots, counts, priority, groups, gangs),
 *       {@link granary.testkit.Clocks} (manual clocks).</li>
 *   <li>Engines: {@link granary.testkit.TestEngine} (a real engine in strict mode, driven by input
 *       events, with the queries tests ask), {@link granary.testkit.TimedRun} (the same in virtual time
 *       with arrivals and run times), {@link granary.testkit.LiveEngine} (behind a real event loop).</li>
 *   <li>Tables: {@link granary.testkit.Table} (a {@code |}-separated scenario table) and
 *       {@link granary.testkit.Scenario} (nodes, jobs and expectations with fixed columns).</li>
 *   <li>{@link granary.testkit.PolicyContract}: the contract every policy's tests extend.</li>
 * </ul>
 *
 * A plain jar in test scope, never part of the runtime; docs/architecture.md, "Tests".
 */
package granary.testkit;
