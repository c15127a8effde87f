package granary.console;

import java.util.List;
import java.util.function.Function;

import org.apache.felix.service.command.CommandSession;

/**
 * A console command whose name has a hyphen ({@code granary:quota-load}). Gogo maps a command name
 * to a method of the same name, which Java cannot spell with a hyphen, so such a command is a Gogo
 * {@link org.apache.felix.service.command.Function} that checks its arguments and calls the method of
 * {@link Commands} (also reachable as {@code granary:quotaLoad}, which {@code help} describes).
 * {@code --help} prints its usage.
 */
final class HyphenatedCommand implements org.apache.felix.service.command.Function {

    private final String name;
    private final String usage;
    private final int minArgs;
    private final int maxArgs;
    private final Function<List<String>, String> body;

    HyphenatedCommand(String name, String usage, int minArgs, int maxArgs, Function<List<String>, String> body) {
        this.name = name;
        this.usage = usage;
        this.minArgs = minArgs;
        this.maxArgs = maxArgs;
        this.body = body;
    }

    String name() {
        return name;
    }

    @Override
    public Object execute(CommandSession session, List<Object> arguments) {
        List<String> args = arguments.stream().map(String::valueOf).toList();
        if (args.size() == 1 && (args.get(0).equals("--help") || args.get(0).equals("-h"))) {
            return usage;
        }
        if (args.size() < minArgs || args.size() > maxArgs) {
            throw new IllegalArgumentException("granary:" + name + " takes " + (minArgs == maxArgs ? minArgs
                    : minArgs + " or " + maxArgs) + " arguments, got " + args.size() + "; usage: " + usage);
        }
        return body.apply(args);
    }

    @Override
    public String toString() {
        return usage;
    }
}
