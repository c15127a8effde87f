package granary.engine;

import granary.api.event.InputEvent;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told of every input event a live {@link EventLoop} hands its {@link Engine}, with how long
 * {@link Engine#handle} took: validation, the handler and the scheduling cycle, and, for an event the
 * engine refused, why. What a monitor beside the live engine needs (the metrics bundle's decision
 * latency and event counters, the console's refusal counts, docs/operations.md, "Metrics"); the
 * engine itself knows nothing of it and stays deterministic.
 *
 * <p>Called on the engine thread, after the event, in order: it must not block, and should only
 * count. An exception it throws is ignored. Work the loop runs with {@link EngineHost#call} (a
 * configuration, a canary's shadow) is not an input event and is not reported.
 */
@ConsumerType
@FunctionalInterface
public interface HandlingListener {

    /**
     * The refusal's word for an event the engine failed on rather than refused as bad input (a fault
     * of the engine or of a policy); every other refusal has the word of its
     * {@link granary.api.model.InvalidRequestException#reason()}.
     */
    String ERROR = "error";

    /**
     * @param event   the event, including the loop's own idle {@link granary.api.event.ClockTick}s
     * @param nanos   how long {@link Engine#handle} took, by {@link System#nanoTime}
     * @param refusal null if the engine accepted the event; if it refused it (nothing changed then),
     *                why in one short stable word: {@link granary.api.model.InvalidRequestException#reason()}
     *                ({@code invalid}, {@code duplicate}, {@code not_found}, a reason code such as
     *                {@code too_large} or a policy's {@code unknown_group}), or {@link #ERROR}
     */
    void handled(InputEvent event, long nanos, String refusal);
}
