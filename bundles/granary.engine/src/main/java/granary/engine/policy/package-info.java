/**
 * The policy set: which policies are installed and selected and which is in effect at each extension
 * point ({@link granary.engine.policy.PolicySet}), and the two built-ins the engine ships (the hunger
 * group order, flat groups), which stay package-private.
 *
 * <p>Depends on the api only: it knows policies through their SPI interfaces and hands them the
 * {@code EngineView} it was given. Called by the engine, the handlers, the passes and the view.
 * Private to the engine bundle.
 */
package granary.engine.policy;
