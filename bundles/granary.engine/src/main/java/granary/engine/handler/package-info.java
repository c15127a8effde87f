/**
 * The event handlers: one class per event family ({@link granary.engine.handler.NodeEvents},
 * {@link granary.engine.handler.JobEvents}), one method per event type. Each validates the whole event
 * before it changes anything (a refused event leaves the engine as it was), applies it through the
 * state's operations, and notes on the agenda what the next cycle must look at.
 *
 * <p>Called by {@link granary.engine.Engine} only; depends on {@code state} and {@code policy}
 * (submit filters, the group resolver). Private to the engine bundle.
 */
package granary.engine.handler;
