package granary.api.spi;

import java.util.function.BiFunction;

import granary.api.report.Report;

/**
 * A report a policy offers: a name, a description, and how it is read from the installed instance
 * on the engine thread. Declared in the policy's {@link PolicyDeclaration}.
 */
public final class ReportSpec {

    private final String name;
    private final String description;
    private final BiFunction<Policy, EngineView, Report> read;
    private final boolean sampled;

    private ReportSpec(String name, String description, BiFunction<Policy, EngineView, Report> read, boolean sampled) {
        if (name == null || !name.matches("[a-z][a-z0-9-]*")) {
            throw new IllegalArgumentException("a report name is lower-case letters, digits and '-', got '" + name + "'");
        }
        this.name = name;
        this.description = description;
        this.read = read;
        this.sampled = sampled;
    }

    static <P extends Policy> ReportSpec of(String name, String description, Class<P> type,
                                            BiFunction<P, EngineView, Report> read, boolean sampled) {
        return new ReportSpec(name, description, (p, v) -> read.apply(type.cast(p), v), sampled);
    }

    public String name() {
        return name;
    }

    public String description() {
        return description;
    }

    /** Whether the simulator samples it over time. */
    public boolean sampled() {
        return sampled;
    }

    /**
     * Reads the report from the installed policy. Call on the engine thread (a {@code Scheduler}
     * query); {@code policy} must be an instance of the declaration's type.
     */
    public Report read(Policy policy, EngineView view) {
        return read.apply(policy, view);
    }
}
