package granary.console;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import granary.api.event.Scheduler;
import granary.api.spi.CommandSpec;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.ReportSpec;

/**
 * The console functions of the policies there are now: when a policy comes, one
 * {@link PolicyFunction} per report and per command of its declaration is registered under its name
 * (and the camelCase alias of a hyphenated name); when it goes, they go. Plain Java, so that it is
 * tested without a framework; {@link PolicyCommandsComponent} feeds it the {@code PolicyProvider}
 * services. A name that a core command or an earlier policy already has is not registered again:
 * Gogo could not tell the two apart.
 */
final class PolicyConsole {

    /** Registers a function with the shell under one name; closing the handle unregisters it. */
    @FunctionalInterface
    interface Registrar {
        Runnable register(String name, PolicyFunction function);
    }

    private final Scheduler scheduler;
    private final Registrar registrar;
    private final Set<String> coreNames;
    private final Map<Object, List<Runnable>> registered = new IdentityHashMap<>();
    private final Map<String, Object> owners = new HashMap<>();

    PolicyConsole(Scheduler scheduler, Registrar registrar, Set<String> coreNames) {
        this.scheduler = scheduler;
        this.registrar = registrar;
        this.coreNames = Set.copyOf(coreNames);
    }

    /** The functions of one declaration: its reports, then its commands. */
    static List<PolicyFunction> functions(PolicyDeclaration d, Scheduler scheduler) {
        List<PolicyFunction> out = new ArrayList<>();
        for (ReportSpec r : d.reports()) {
            out.add(PolicyFunction.report(d.name(), r, scheduler));
        }
        for (CommandSpec c : d.commands()) {
            out.add(PolicyFunction.command(d.name(), c, scheduler));
        }
        return out;
    }

    /** A policy came: registers its functions. {@code key} identifies it for {@link #removed}. */
    synchronized void added(Object key, PolicyDeclaration declaration) {
        List<Runnable> handles = new ArrayList<>();
        for (PolicyFunction f : functions(declaration, scheduler)) {
            for (String name : f.names()) {
                if (!coreNames.contains(name) && owners.putIfAbsent(name, key) == null) {
                    Runnable unregister = registrar.register(name, f);
                    handles.add(() -> {
                        owners.remove(name);
                        unregister.run();
                    });
                }
            }
        }
        registered.merge(key, handles, (a, b) -> {
            List<Runnable> all = new ArrayList<>(a);
            all.addAll(b);
            return all;
        });
    }

    /** The policy went (its bundle stopped): its functions go. */
    synchronized void removed(Object key) {
        List<Runnable> handles = registered.remove(key);
        if (handles != null) {
            handles.forEach(Runnable::run);
        }
    }

    /** Every function goes (the console stops). */
    synchronized void clear() {
        new ArrayList<>(registered.keySet()).forEach(this::removed);
    }

    /** The names registered now, for tests and messages. */
    synchronized Set<String> names() {
        return Set.copyOf(owners.keySet());
    }
}
