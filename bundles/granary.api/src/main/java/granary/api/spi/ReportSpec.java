package granary.api.spi;

import java.util.List;
import java.util.function.BiFunction;

import granary.api.model.InvalidRequestException;
import granary.api.report.Report;

/**
 * A report a policy offers: a name, a description, its parameters (usually none), and how it is read
 * from the installed instance on the engine thread. Declared in the policy's {@link PolicyDeclaration}.
 * A report with parameters (billing of one day) is {@link #prepare prepared} off the engine thread,
 * like a {@link CommandSpec}: bad arguments are refused before the engine is asked.
 */
public final class ReportSpec {

    /**
     * Turns checked arguments into the read of the report; throws {@link IllegalArgumentException}
     * (best an {@link InvalidRequestException}) naming the bad argument.
     *
     * @param <P> the policy's class
     */
    @FunctionalInterface
    public interface Preparer<P extends Policy> {
        BiFunction<P, EngineView, Report> prepare(List<String> args);
    }

    private final String name;
    private final String description;
    private final List<CommandSpec.Parameter> parameters;
    private final Class<? extends Policy> type;
    private final Preparer<Policy> preparer;
    private final boolean sampled;

    private ReportSpec(String name, String description, List<CommandSpec.Parameter> parameters,
                       Class<? extends Policy> type, Preparer<Policy> preparer, boolean sampled) {
        if (name == null || !name.matches("[a-z][a-z0-9-]*")) {
            throw new IllegalArgumentException("a report name is lower-case letters, digits and '-', got '" + name + "'");
        }
        if (parameters.stream().anyMatch(p -> !p.optional())) {
            // the simulator samples and the HTTP API lists reports without arguments
            throw new IllegalArgumentException("report " + name + ": report parameters are optional");
        }
        this.name = name;
        this.description = description;
        this.parameters = List.copyOf(parameters);
        this.type = type;
        this.preparer = preparer;
        this.sampled = sampled;
    }

    static <P extends Policy> ReportSpec of(String name, String description, Class<P> type, List<CommandSpec.Parameter> parameters,
                                            Preparer<P> prepare, boolean sampled) {
        Preparer<Policy> any = args -> {
            BiFunction<P, EngineView, Report> read = prepare.prepare(args);
            return (p, v) -> read.apply(type.cast(p), v);
        };
        return new ReportSpec(name, description, parameters, type, any, sampled);
    }

    public String name() {
        return name;
    }

    public String description() {
        return description;
    }

    /** The optional parameters, in order; empty for most reports. */
    public List<CommandSpec.Parameter> parameters() {
        return parameters;
    }

    /** Whether the simulator samples it over time. */
    public boolean sampled() {
        return sampled;
    }

    /** {@code billing [day]}. */
    public String usage() {
        StringBuilder sb = new StringBuilder(name);
        parameters.forEach(p -> sb.append(" [").append(p.name()).append(']'));
        return sb.toString();
    }

    /**
     * Checks the arguments (at most one per parameter), then prepares the read as an
     * {@link Invocation} to run on the engine thread.
     *
     * @throws InvalidRequestException with the usage line when there are too many, or the preparer's refusal
     */
    @SuppressWarnings("unchecked") // type is the declaration's class: every policy this read gets is one
    public Invocation prepare(List<String> args) {
        if (args.size() > parameters.size()) {
            throw new InvalidRequestException("report " + name, "arguments", "takes at most " + parameters.size()
                    + " argument" + (parameters.size() == 1 ? "" : "s") + ", got " + args.size() + "; usage: " + usage());
        }
        return Invocation.query((Class<Policy>) type, preparer.prepare(List.copyOf(args)));
    }

    /**
     * Reads the report without arguments from the installed policy. Call on the engine thread (a
     * {@code Scheduler} query); {@code policy} must be an instance of the declaration's type.
     */
    public Report read(Policy policy, EngineView view) {
        return preparer.prepare(List.of()).apply(policy, view);
    }
}
