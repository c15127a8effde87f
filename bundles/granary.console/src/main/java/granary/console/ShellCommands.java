package granary.console;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/**
 * {@code help} and {@code exit} as an operator of the Granary console expects them (docs/operations.md,
 * "What the console shows"): {@code help} lists Granary's commands first, grouped — the engine's,
 * each policy's, the others — and says how to list the shell's and the framework's; {@code exit}
 * stops the runtime cleanly, as Ctrl-D does. The console's profile looks bare names up in scope
 * {@code granary} first, so {@code help} and {@code exit} are these.
 */
@Component(service = Object.class, property = {
        "osgi.command.scope=granary",
        "osgi.command.function=help",
        "osgi.command.function=exit"})
public class ShellCommands {

    static final String SCOPE = "granary";
    private static final String FILTER = "(osgi.command.scope=" + SCOPE + ")";
    /** Gogo's command bundle's help: every command of the framework, with its parameters. */
    static final String FRAMEWORK_HELP = "felix:help";

    private final BundleContext context;

    @Activate
    public ShellCommands(BundleContext context) {
        this.context = context;
    }

    @Descriptor("Granary's commands, grouped, with what each does; then how to list the shell's and the framework's")
    public String help(CommandSession session) {
        Map<String, Map<String, String>> groups = groups();
        StringBuilder sb = new StringBuilder("Granary's commands (the granary: prefix may be left out):");
        groups.forEach((group, commands) -> {
            sb.append("\n  ").append(group).append(':');
            commands.values().forEach(line -> sb.append("\n    ").append(line));
        });
        int granary = groups.values().stream().mapToInt(Map::size).sum();
        int others = otherCommands(session);
        sb.append("\nhelp <command> describes one command, e.g. help granary:policy.");
        if (others > 0) {
            sb.append("\nThe shell's commands (echo, grep, cat, less, ...) and the framework's (lb, start, stop, ...): ")
                    .append(others).append(" more; ").append(FRAMEWORK_HELP).append(" lists them.");
        }
        sb.append("\n(").append(granary).append(" Granary commands.)");
        return sb.toString();
    }

    @Descriptor("describe one command: Granary's usage line, or the shell's help for another command")
    public Object help(CommandSession session, @Descriptor("command name, e.g. granary:policy or lb") String name) throws Exception {
        String bare = name.startsWith(SCOPE + ":") ? name.substring(SCOPE.length() + 1) : name;
        for (Map.Entry<String, Map<String, String>> group : groups().entrySet()) {
            String usage = group.getValue().get(bare);
            if (usage != null) {
                // a policy's function has its usage line only; a method command has the framework's
                // help too, with every parameter described
                return group.getKey().startsWith("policy ") || !knows(session, FRAMEWORK_HELP)
                        ? usage : session.execute(FRAMEWORK_HELP + " " + SCOPE + ":" + bare);
            }
        }
        if (name.startsWith(SCOPE + ":")) {
            throw new Refusal("help: no command " + name + " (help lists Granary's commands)");
        }
        if (!knows(session, FRAMEWORK_HELP)) {
            throw new Refusal("help: " + name + " is not a Granary command, and there is no " + FRAMEWORK_HELP + " to ask");
        }
        return session.execute(FRAMEWORK_HELP + " " + name);
    }

    @Descriptor("stop the Granary runtime cleanly and leave the console (as Ctrl-D on an empty line)")
    public String exit() {
        try {
            // the system bundle stops on a thread of its own: this command still answers
            context.getBundle(0).stop();
        } catch (BundleException e) {
            throw new Refusal("exit: the runtime did not stop: " + e.getMessage(), e);
        }
        return "stopping the runtime";
    }

    @Descriptor("as exit; the runtime exits with code 0 after a clean stop, so 0 is the only code taken")
    public String exit(@Descriptor("exit code: 0") int code) {
        if (code != 0) {
            throw new Refusal("exit: the runtime exits with code 0 after a clean stop; got " + code
                    + " (type exit, or stop the process for another code)");
        }
        return exit();
    }

    /** Granary's commands by group (the engine's, each policy's, the others), each name with its usage line. */
    Map<String, Map<String, String>> groups() {
        Map<String, Map<String, String>> groups = new TreeMap<>((a, b) -> rank(a) != rank(b)
                ? Integer.compare(rank(a), rank(b)) : a.compareTo(b));
        Map<String, Object> byFunction = new TreeMap<>();
        List<ServiceReference<?>> refs = references();
        try {
            for (ServiceReference<?> ref : refs) {
                Object service = context.getService(ref);
                if (service != null) {
                    functions(ref.getProperty("osgi.command.function")).forEach(f -> byFunction.putIfAbsent(f, service));
                }
            }
            List<String> all = List.copyOf(byFunction.keySet());
            byFunction.forEach((function, service) -> {
                if (isAlias(function, all)) {
                    return;   // quotaLoad beside quota-load: one entry
                }
                String group;
                String line;
                if (service instanceof PolicyFunction f) {
                    group = "policy " + f.policy();
                    line = f.toString();
                } else if (service instanceof Commands && Commands.USAGE.containsKey(function)) {
                    group = ENGINE;
                    line = Commands.USAGE.get(function);
                } else {
                    group = OTHER;
                    line = SCOPE + ":" + function + describe(byFunction.values(), function);
                }
                groups.computeIfAbsent(group, g -> new TreeMap<>()).put(function, line);
            });
        } finally {
            refs.forEach(ref -> {
                try {
                    context.ungetService(ref);
                } catch (IllegalStateException | IllegalArgumentException gone) {
                    // the service went away meanwhile
                }
            });
        }
        return groups;
    }

    private static final String ENGINE = "the engine";
    private static final String OTHER = "other";

    private static int rank(String group) {
        return group.equals(ENGINE) ? 0 : group.equals(OTHER) ? 2 : 1;
    }

    private List<ServiceReference<?>> references() {
        try {
            ServiceReference<?>[] refs = context.getAllServiceReferences(null, FILTER);
            return refs == null ? List.of() : List.of(refs);
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(FILTER, e);
        }
    }

    private static List<String> functions(Object property) {
        if (property instanceof String s) {
            return List.of(s);
        }
        if (property instanceof String[] a) {
            return List.of(a);
        }
        if (property instanceof Collection<?> c) {
            return c.stream().map(String::valueOf).toList();
        }
        return List.of();
    }

    /** True for the camelCase form of a hyphenated name the same service also offers. */
    static boolean isAlias(String function, List<String> functions) {
        return !function.contains("-") && functions.stream()
                .anyMatch(f -> f.contains("-") && PolicyFunction.camelCase(f).equals(function));
    }

    /**
     * " - <descriptor>" of the described form with the fewest parameters, not a catch-all, of the
     * function's method on any of the services (a hyphenated name is its camelCase method), or "".
     */
    private static String describe(Collection<Object> services, String function) {
        String method = PolicyFunction.camelCase(function);
        return services.stream().distinct().flatMap(service -> Arrays.stream(service.getClass().getMethods()))
                .filter(m -> m.getName().equals(method) && !m.isVarArgs() && m.getAnnotation(Descriptor.class) != null)
                .min(Comparator.comparingInt(Method::getParameterCount))
                .map(m -> " - " + m.getAnnotation(Descriptor.class).value()).orElse("");
    }

    private static boolean knows(CommandSession session, String command) {
        return session.get(".commands") instanceof Collection<?> all && all.contains(command);
    }

    /** How many commands outside scope granary the session knows (0 if the shell does not say). */
    private static int otherCommands(CommandSession session) {
        Object commands = session.get(".commands");
        if (!(commands instanceof Collection<?> all)) {
            return 0;
        }
        List<Object> others = new ArrayList<>(all);
        others.removeIf(c -> String.valueOf(c).startsWith(SCOPE + ":"));
        return others.size();
    }
}
