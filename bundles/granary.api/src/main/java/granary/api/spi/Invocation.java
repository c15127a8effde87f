package granary.api.spi;

import java.util.function.BiFunction;

import granary.api.report.Report;

/**
 * What a prepared {@link CommandSpec} asks of the engine: a read of the installed policy (run on the
 * engine thread, answered with a {@link Report}), or new settings for it (handed over with a
 * {@code PolicyReconfigured} event; the answer is the policy's notes).
 */
public final class Invocation {

    private final BiFunction<Policy, EngineView, Report> query;
    private final Class<? extends Policy> type;
    private final Object settings;

    private Invocation(Class<? extends Policy> type, BiFunction<Policy, EngineView, Report> query, Object settings) {
        this.type = type;
        this.query = query;
        this.settings = settings;
    }

    /** A read of the installed policy, which must be a {@code type}. */
    public static <P extends Policy> Invocation query(Class<P> type, BiFunction<P, EngineView, Report> read) {
        return new Invocation(type, (p, v) -> read.apply(type.cast(p), v), null);
    }

    /** New settings for the installed policy (it must be {@link Reconfigurable}). */
    public static Invocation reconfigure(Object settings) {
        if (settings == null) {
            throw new IllegalArgumentException("reconfigure: no settings");
        }
        return new Invocation(null, null, settings);
    }

    /** True for {@link #reconfigure}: the invocation changes state. */
    public boolean changesState() {
        return settings != null;
    }

    /** The settings of a {@link #reconfigure} invocation, else null. */
    public Object settings() {
        return settings;
    }

    /**
     * Runs a query on the engine thread.
     *
     * @param installed the installed policy of the command's name, or null
     * @throws IllegalStateException if it is not installed or not of the expected type
     */
    public Report run(Policy installed, EngineView view) {
        if (query == null) {
            throw new IllegalStateException("a reconfigure invocation is run as a PolicyReconfigured event");
        }
        if (!type.isInstance(installed)) {
            throw new IllegalStateException("no policy of type " + type.getSimpleName() + " is installed");
        }
        return query.apply(installed, view);
    }
}
