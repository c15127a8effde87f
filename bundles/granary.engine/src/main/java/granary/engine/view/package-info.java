/**
 * What the engine hands to policies, the console and the simulator: {@link granary.engine.view.EngineContext},
 * the live {@code EngineView}, {@code CycleContext} and {@code PlacementContext} over the state. It reads
 * the state directly and asks the engine for what only the engine can do (schedule a unit now, look
 * at everything again) through the narrow {@link granary.engine.view.EngineContext.Requests}.
 *
 * <p>Depends on {@code state}, {@code policy} and {@code cycle} (eligibility); nothing in the engine
 * depends on it but the engine's constructor. Policies reach it only through the api's interfaces.
 * Private to the engine bundle.
 */
package granary.engine.view;
