/**
 * The engine's state and indexes: nodes, jobs, units and group queues ({@link granary.engine.state.Cluster},
 * {@link granary.engine.state.Workload}), the fit-search structures ({@link granary.engine.state.NodeIndex},
 * {@link granary.engine.state.FitQueue}), the {@link granary.engine.state.Allocator} (the only place slots
 * change hands), the {@link granary.engine.state.Agenda} of the next cycle and the
 * {@link granary.engine.state.Invariants}.
 *
 * <p>Why the allocator and the agenda live here and not with the passes: the books are kept in step
 * through package-private fields and mutators (a unit's queue, bucket and heap position, a node's index
 * positions, grant counters, {@code UnitState.add/take}, {@code NodeState.add/take}). Kept in one
 * package, those stay package-private and only {@code Allocator} and {@code Workload} change the books;
 * the handlers and passes see read accessors and a few whole operations ({@code Allocator.grant/take},
 * {@code Workload.addUnit/desire/end/move}, {@code Cluster.add/capacity/blacklist}).
 *
 * <p>Depends on the api only. Private to the engine bundle: public members here are for the engine's
 * own packages (and the benchmark seam, {@link granary.engine.probe}), not for other bundles.
 */
package granary.engine.state;
