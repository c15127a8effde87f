/**
 * The scheduling cycle's passes and the rules they share: {@link granary.engine.cycle.PassiveFiller}
 * (fill freed nodes from the waiting queues), {@link granary.engine.cycle.ActivePlacer} (place new
 * desire at once), {@link granary.engine.cycle.GangScheduler} (all-or-nothing gangs), and
 * {@link granary.engine.cycle.Eligibility} (may a unit use a node, how many slots admission allows).
 *
 * <p>Called by {@link granary.engine.Engine} (the cycle's recipe) and by the view (a cycle action's
 * {@code schedule}, a gang placement's {@code candidates}); depends on {@code state} and {@code policy},
 * and sees policies' view only as the api's {@code EngineView}. Private to the engine bundle.
 */
package granary.engine.cycle;
