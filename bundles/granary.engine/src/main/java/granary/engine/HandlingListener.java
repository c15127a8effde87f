package granary.engine;

import granary.api.event.InputEvent;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told of every input event a live {@link EventLoop} hands its {@link Engine}, with how long
 * {@link Engine#handle} took: validation, the handler and the scheduling cycle. What a monitor beside
 * the live engine needs (the metrics bundle's decision latency and event counters, docs/operations.md,
 * "Metrics"); the engine itself knows nothing of it and stays deterministic.
 *
 * <p>Called on the engine thread, after the event, in order: it must not block, and should only
 * count. An exception it throws is ignored. Work the loop runs with {@link EngineHost#call} (a
 * configuration, a canary's shadow) is not an input event and is not reported.
 */
@ConsumerType
@FunctionalInterface
public interface HandlingListener {

    /**
     * @param event    the event, including the loop's own idle {@link granary.api.event.ClockTick}s
     * @param nanos    how long {@link Engine#handle} took, by {@link System#nanoTime}
     * @param accepted false if the engine refused the event (nothing changed then)
     */
    void handled(InputEvent event, long nanos, boolean accepted);
}
