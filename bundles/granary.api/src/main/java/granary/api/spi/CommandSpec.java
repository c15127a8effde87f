package granary.api.spi;

import java.util.List;
import java.util.stream.Collectors;

import granary.api.model.InvalidRequestException;

/**
 * A command a policy offers operators: the console's {@code granary:<name>} and the HTTP API's
 * command of the policy. {@link #prepare} runs off the engine thread (it may read files) and turns
 * the arguments into an {@link Invocation}; the console or the HTTP API then runs that on the engine.
 */
public final class CommandSpec {

    /** One argument: its name for the usage line, a description, and whether it may be left out. */
    public record Parameter(String name, String description, boolean optional) {
    }

    /** Turns checked arguments into the work to do; throws {@link InvalidRequestException} on bad input. */
    @FunctionalInterface
    public interface Preparer {
        Invocation prepare(List<String> args);
    }

    private final String name;
    private final String description;
    private final List<Parameter> parameters;
    private final Preparer preparer;

    private CommandSpec(String name, String description, List<Parameter> parameters, Preparer preparer) {
        if (name == null || !name.matches("[a-z][a-z0-9-]*")) {
            throw new IllegalArgumentException("a command name is lower-case letters, digits and '-', got '" + name + "'");
        }
        boolean optionalSeen = false;
        for (Parameter p : parameters) {
            if (optionalSeen && !p.optional()) {
                throw new IllegalArgumentException("command " + name + ": required parameter " + p.name() + " after an optional one");
            }
            optionalSeen |= p.optional();
        }
        this.name = name;
        this.description = description;
        this.parameters = List.copyOf(parameters);
        this.preparer = preparer;
    }

    public static CommandSpec of(String name, String description, List<Parameter> parameters, Preparer preparer) {
        return new CommandSpec(name, description, parameters, preparer);
    }

    public static Parameter required(String name, String description) {
        return new Parameter(name, description, false);
    }

    public static Parameter optional(String name, String description) {
        return new Parameter(name, description, true);
    }

    public String name() {
        return name;
    }

    public String description() {
        return description;
    }

    public List<Parameter> parameters() {
        return parameters;
    }

    /** {@code quota-load <file> [workerSpans]}. */
    public String usage() {
        return (name + " " + parameters.stream().map(p -> p.optional() ? "[" + p.name() + "]" : "<" + p.name() + ">")
                .collect(Collectors.joining(" "))).trim();
    }

    /**
     * Checks the number of arguments, then prepares the invocation.
     *
     * @throws InvalidRequestException with the usage line when the count is wrong, or the preparer's problems
     */
    public Invocation prepare(List<String> args) {
        long required = parameters.stream().filter(p -> !p.optional()).count();
        if (args.size() < required || args.size() > parameters.size()) {
            String expected = required == parameters.size() ? Long.toString(required) : required + " to " + parameters.size();
            throw new InvalidRequestException("command " + name, "arguments", "takes " + expected + " argument"
                    + (parameters.size() == 1 && required == 1 ? "" : "s") + ", got " + args.size() + "; usage: " + usage());
        }
        return preparer.prepare(List.copyOf(args));
    }
}
