package granary.console;

import java.lang.reflect.Constructor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;

import granary.api.event.Scheduler;
import granary.api.spi.EngineView;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.CommandSessionListener;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Tab completion of the names the granary commands take — policies, jobs, nodes, queues — in Gogo's
 * JLine shell (docs/operations.md, "What the console shows"). The shell keeps per session a map from
 * command to completion data ({@code .completions}); the first command a session runs (its profile)
 * passes here, and this fills the map for the granary commands. Each entry asks
 * {@code granary:names <kind>} for the candidates when Tab is pressed.
 *
 * <p>The completion data is JLine's class, built by reflection from the shell's own class loader: the
 * console imports nothing of JLine, and under a shell without completion (gogo.shell) this does
 * nothing.
 */
@Component(service = {CommandSessionListener.class, Object.class}, property = {
        "osgi.command.scope=granary",
        "osgi.command.function=names"})
public class Completions implements CommandSessionListener {

    static final String COMPLETIONS = ".completions";   // org.apache.felix.gogo.jline.Shell.VAR_COMPLETIONS
    static final String READER = ".reader";             // org.apache.felix.gogo.jline.Shell.VAR_READER
    private static final String DATA = "org.jline.builtins.Completers$CompletionData";

    /** Which names each command takes (its arguments, in any position). */
    static final Map<String, List<String>> ARGUMENTS = Map.of(
            "granary:policy", List.of("policies"),
            "granary:deselect", List.of("policies"),
            "granary:cancel", List.of("jobs"),
            "granary:move", List.of("jobs", "queues"),
            "granary:why", List.of("jobs"),
            "granary:blacklist", List.of("nodes"),
            "granary:unblacklist", List.of("nodes"));

    /** The kinds of names, as {@code granary:names} takes them. */
    static final List<String> KINDS = List.of("policies", "jobs", "nodes", "queues");

    private final Scheduler scheduler;

    @Activate
    public Completions(@Reference Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    @Descriptor("names for completion: policies, jobs, nodes or queues (used by Tab in the console)")
    public List<String> names(@Descriptor("policies, jobs, nodes or queues") String kind) {
        Function<EngineView, List<String>> read = switch (kind) {
            case "policies" -> v -> sorted(v.policies().stream().map(p -> p.name()).toList());
            case "jobs" -> v -> sorted(v.jobs().stream().map(j -> j.id()).toList());
            case "nodes" -> v -> sorted(v.cluster().nodes().stream().map(n -> n.name()).toList());
            case "queues" -> v -> sorted(v.groups().stream().map(g -> g.name()).toList());
            default -> throw new Refusal("granary:names: no kind " + granary.api.model.Text.quote(kind)
                    + "; the kind is one of " + String.join(", ", KINDS));
        };
        return Commands.await(scheduler.query(read::apply));
    }

    @Descriptor("every name the console completes, by kind: policies, jobs, nodes and queues")
    public String names() {
        List<String> lines = new ArrayList<>();
        for (String kind : KINDS) {
            List<String> names = names(kind);
            lines.add(kind + ": " + (names.isEmpty() ? "(none)" : String.join(" ", names)));
        }
        return String.join("\n", lines);
    }

    @Descriptor("(any other arguments: answers with the usage line)")
    public String names(@Descriptor("ignored") Object... args) {
        throw new Refusal("granary:names takes 0 or 1 argument, got " + args.length
                + "; usage: granary:names [" + String.join("|", KINDS) + "]");
    }

    private static List<String> sorted(List<String> names) {
        return List.copyOf(new TreeSet<>(names));
    }

    @Override
    public void beforeExecute(CommandSession session, CharSequence command) {
        Object map = session.get(COMPLETIONS);
        Object reader = session.get(READER);
        if (!(map instanceof Map<?, ?> completions) || reader == null || completions.containsKey("granary:policy")) {
            return;
        }
        try {
            Constructor<?> data = reader.getClass().getClassLoader().loadClass(DATA)
                    .getConstructor(List.class, String.class, String.class, String.class);
            @SuppressWarnings("unchecked")
            Map<String, List<Object>> m = (Map<String, List<Object>>) completions;
            for (Map.Entry<String, List<String>> e : ARGUMENTS.entrySet()) {
                List<Object> entries = new ArrayList<>();
                for (String kind : e.getValue()) {
                    entries.add(data.newInstance(null, kind, "granary:names " + kind, null));
                }
                m.put(e.getKey(), entries);
            }
        } catch (ReflectiveOperationException | RuntimeException noJline) {
            // another shell, or another JLine: commands still complete, names do not
        }
    }

    @Override
    public void afterExecute(CommandSession session, CharSequence command, Exception exception) {
    }

    @Override
    public void afterExecute(CommandSession session, CharSequence command, Object result) {
    }

    @Override
    public String toString() {
        return ARGUMENTS.keySet().stream().sorted().collect(Collectors.joining(", ", "completions for ", ""));
    }
}
