package granary.console;

import java.util.List;

import granary.api.event.PolicyReconfigured;
import granary.api.event.Scheduler;
import granary.api.report.Report;
import granary.api.spi.CommandSpec;
import granary.api.spi.Invocation;
import granary.api.spi.Policy;
import granary.api.spi.ReportSpec;
import granary.codec.CodecException;

import org.apache.felix.service.command.CommandSession;

/**
 * One report or command a policy declares, as the Gogo function {@code granary:<name>}: it checks the
 * number of arguments, prepares the work off the engine thread ({@link ReportSpec#prepare},
 * {@link CommandSpec#prepare}), then runs it on the engine — a read of the installed policy, printed
 * with {@link ReportText}, or new settings, answered with the policy's notes. {@code --help} prints
 * the usage line. The console names no policy: all of it comes from the declaration.
 */
final class PolicyFunction implements org.apache.felix.service.command.Function {

    /** Prepares the invocation from checked arguments. */
    private interface Preparer {
        Invocation prepare(List<String> args);
    }

    private final String policy;
    private final String name;
    private final String usage;
    private final int minArgs;
    private final int maxArgs;
    private final Preparer preparer;
    private final Scheduler scheduler;

    private PolicyFunction(String policy, String name, String usage, int minArgs, int maxArgs, Preparer preparer,
                           Scheduler scheduler) {
        this.policy = policy;
        this.name = name;
        this.usage = usage;
        this.minArgs = minArgs;
        this.maxArgs = maxArgs;
        this.preparer = preparer;
        this.scheduler = scheduler;
    }

    static PolicyFunction report(String policy, ReportSpec r, Scheduler scheduler) {
        return new PolicyFunction(policy, r.name(), "granary:" + r.usage() + " - " + r.description(), 0,
                r.parameters().size(), r::prepare, scheduler);
    }

    static PolicyFunction command(String policy, CommandSpec c, Scheduler scheduler) {
        int required = (int) c.parameters().stream().filter(p -> !p.optional()).count();
        return new PolicyFunction(policy, c.name(), "granary:" + c.usage() + " - " + c.description(), required,
                c.parameters().size(), c::prepare, scheduler);
    }

    /** The policy that declares the function. */
    String policy() {
        return policy;
    }

    /** The declared name ({@code quota-load}). */
    String name() {
        return name;
    }

    /** The declared name, and its camelCase form when it has a '-' ({@code quotaLoad}). */
    List<String> names() {
        String camel = camelCase(name);
        return camel.equals(name) ? List.of(name) : List.of(name, camel);
    }

    static String camelCase(String hyphenated) {
        StringBuilder sb = new StringBuilder();
        boolean upper = false;
        for (char ch : hyphenated.toCharArray()) {
            if (ch == '-') {
                upper = true;
            } else {
                sb.append(upper ? Character.toUpperCase(ch) : ch);
                upper = false;
            }
        }
        return sb.toString();
    }

    @Override
    public Object execute(CommandSession session, List<Object> arguments) {
        try {
            return run(arguments.stream().map(String::valueOf).toList());
        } catch (RuntimeException e) {
            throw Refusal.of(e);   // a policy's own refusal too: its words, no class name
        }
    }

    /** Runs the function with its arguments as typed; the answer is the text the console prints. */
    String run(List<String> args) {
        if (args.size() == 1 && (args.get(0).equals("--help") || args.get(0).equals("-h"))) {
            return usage;
        }
        if (args.size() < minArgs || args.size() > maxArgs) {
            throw new Refusal("granary:" + name + " takes " + (minArgs == maxArgs ? minArgs
                    : minArgs + " or " + maxArgs) + " arguments, got " + args.size() + "; usage: " + usage);
        }
        Invocation work = prepare(args);
        if (work.changesState()) {
            return String.join("\n", Commands.await(scheduler.submit(new PolicyReconfigured(policy, work.settings()))).notes());
        }
        Report report = Commands.await(scheduler.query(v -> work.run(installed(v.policy(policy)), v)));
        return ReportText.render(report);
    }

    private Invocation prepare(List<String> args) {
        try {
            return preparer.prepare(args);
        } catch (CodecException e) {
            // every problem on its own line, so that an operator sees all of them at once
            throw new Refusal(e.describe(), e);
        }
    }

    private Policy installed(Policy p) {
        if (p == null) {
            throw new Refusal("policy " + policy + " is not installed (granary:policies lists what is)");
        }
        return p;
    }

    @Override
    public String toString() {
        return usage;
    }
}
