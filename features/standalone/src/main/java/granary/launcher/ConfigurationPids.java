package granary.launcher;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * Which configuration PIDs the running parts read, so that a {@code --config} PID nobody reads (a
 * misspelling) is warned about rather than accepted in silence (docs/operations.md, "Configuration").
 * The readers are the Declarative Services components (their configuration PIDs,
 * from the Service Component Runtime) and the Managed Services (their {@code service.pid}, e.g. the
 * policies' configurations). Read by reflection: the launcher is outside the framework.
 */
final class ConfigurationPids {

    static final String SCR = "org.osgi.service.component.runtime.ServiceComponentRuntime";
    static final String MANAGED = "org.osgi.service.cm.ManagedService";
    static final String MANAGED_FACTORY = "org.osgi.service.cm.ManagedServiceFactory";

    private ConfigurationPids() {
    }

    /** The PIDs read in the framework now. */
    static Set<String> known(BundleContext context) {
        Set<String> pids = new TreeSet<>();
        for (String type : List.of(MANAGED, MANAGED_FACTORY)) {
            for (ServiceReference<?> ref : references(context, type)) {
                pids.addAll(strings(ref.getProperty("service.pid")));
            }
        }
        for (ServiceReference<?> ref : references(context, SCR)) {
            Object scr = context.getService(ref);
            try {
                Object dtos = scr.getClass().getMethod("getComponentDescriptionDTOs", Bundle[].class)
                        .invoke(scr, (Object) new Bundle[0]);
                for (Object dto : (Collection<?>) dtos) {
                    Field pid = dto.getClass().getField("configurationPid");
                    pids.addAll(strings(pid.get(dto)));
                }
            } catch (ReflectiveOperationException | RuntimeException e) {
                // another SCR: only the Managed Services count
            } finally {
                context.ungetService(ref);
            }
        }
        return pids;
    }

    /**
     * The warning for each configured PID that no running part reads, naming the closest known PID
     * and all of them; none when every PID is read.
     */
    static List<String> warnings(Collection<String> configured, Set<String> known) {
        List<String> out = new ArrayList<>();
        for (String pid : configured) {
            if (known.contains(pid)) {
                continue;
            }
            String closest = closest(pid, known);
            out.add("--config: no part of the runtime reads configuration PID '" + pid + "'"
                    + (closest == null ? "" : "; did you mean '" + closest + "'?")
                    + " (known PIDs: " + String.join(", ", known) + ")");
        }
        return out;
    }

    /** The known PID with the fewest edits from {@code pid}, if it is within a third of its length; else null. */
    static String closest(String pid, Set<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String k : known) {
            int d = distance(pid, k);
            if (d < bestDistance) {
                best = k;
                bestDistance = d;
            }
        }
        return best != null && bestDistance <= Math.max(2, pid.length() / 3) ? best : null;
    }

    /** Levenshtein distance: insertions, deletions and substitutions. */
    static int distance(String a, String b) {
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
                current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
            }
            int[] t = previous;
            previous = current;
            current = t;
        }
        return previous[b.length()];
    }

    private static List<ServiceReference<?>> references(BundleContext context, String type) {
        try {
            ServiceReference<?>[] refs = context.getAllServiceReferences(type, null);
            return refs == null ? List.of() : List.of(refs);
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> strings(Object value) {
        if (value instanceof String s) {
            return List.of(s);
        }
        if (value instanceof String[] a) {
            return List.of(a);
        }
        if (value instanceof Collection<?> c) {
            return c.stream().map(String::valueOf).toList();
        }
        return List.of();
    }
}
