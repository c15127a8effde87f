package granary.canary.osgi;

import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import granary.api.model.Clock;
import granary.api.spi.Policy;
import granary.canary.Canary;
import granary.canary.CandidatePolicies;
import granary.engine.EngineHost;

import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceObjects;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The canary's Gogo commands (scope {@code granary}, docs/canary.md). A shadow's policy instances
 * come from the same prototype-scoped {@code Policy} services the live engine binds, so a candidate
 * runs with its live configuration; every command runs on the live engine's thread. Gogo calls
 * methods by name, so the methods are camelCase ({@code granary:canaryStart}); the hyphenated names
 * ({@code granary:canary-start}) are {@code Function} services registered beside them, as the
 * console does for policy commands (docs/architecture.md, "Reports and commands").
 */
@Component(immediate = true, service = Object.class, property = {
        "osgi.command.scope=granary",
        "osgi.command.function=canaryStart",
        "osgi.command.function=canaryReport",
        "osgi.command.function=canaryPromote",
        "osgi.command.function=canaryRollback",
        "osgi.command.function=canaryStop"})
public class CanaryCommands {

    /** The wait-for-resource mark (docs/policies.md, "submitwindow"). */
    private static final long TIMEOUT_MILLIS = 10_000;
    private static final long ANSWER_SECONDS = 30;

    private final EngineHost host;
    private final BundleContext context;
    private Canary canary;
    private final List<ServiceRegistration<?>> hyphenated = new ArrayList<>();

    @Activate
    public CanaryCommands(@Reference EngineHost host, BundleContext context) {
        this.host = host;
        this.context = context;
        function("canary-start", 1, 2, "canary-start <policies> [windowSeconds]",
                a -> a.size() == 1 ? canaryStart(a.get(0)) : canaryStart(a.get(0), whole("windowSeconds", a.get(1))));
        function("canary-report", 0, 0, "canary-report", a -> canaryReport());
        function("canary-promote", 3, 3, "canary-promote <guard> <marginPercent> <watchSeconds>",
                a -> canaryPromote(a.get(0), number("marginPercent", a.get(1)), whole("watchSeconds", a.get(2))));
        function("canary-rollback", 0, 0, "canary-rollback", a -> canaryRollback());
        function("canary-stop", 0, 0, "canary-stop", a -> canaryStop());
    }

    private void function(String name, int min, int max, String usage, Function<List<String>, Object> call) {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("osgi.command.scope", "granary");
        props.put("osgi.command.function", name);
        org.apache.felix.service.command.Function f = (session, arguments) -> {
            if (arguments.size() < min || arguments.size() > max) {
                throw new IllegalArgumentException("granary:" + usage + ": takes " + (min == max ? min : min + " to " + max)
                        + " arguments, got " + arguments.size());
            }
            return call.apply(arguments.stream().map(String::valueOf).toList());
        };
        hyphenated.add(context.registerService(org.apache.felix.service.command.Function.class, f, props));
    }

    private static long whole(String field, String text) {
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(field + " '" + text + "' is not a whole number of seconds");
        }
    }

    private static double number(String field, String text) {
        try {
            return Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(field + " '" + text + "' is not a number");
        }
    }

    @Deactivate
    void deactivate() {
        for (ServiceRegistration<?> r : hyphenated) {
            try {
                r.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the bundle is stopping: the framework unregistered it first
            }
        }
        try {
            run(e -> {
                if (canary != null && canary.phase() != Canary.Phase.IDLE) {
                    canary.stop();   // the live engine stays: take the watchers off it
                }
                return null;
            });
        } catch (RuntimeException engineGone) {
            // the engine is stopping too: nothing is left to watch
        }
    }

    @Descriptor("run a candidate policy selection in shadow beside the live one")
    public String canaryStart(@Descriptor("policies, comma-separated, in selection order") String policies) {
        return canaryStart(policies, 300);
    }

    @Descriptor("run a candidate policy selection in shadow beside the live one for a window")
    public String canaryStart(@Descriptor("policies, comma-separated, in selection order") String policies,
                              @Descriptor("window in seconds (default 300)") long windowSeconds) {
        return run(e -> canary(e).start(Canary.selection(policies), windowSeconds));
    }

    @Descriptor("live beside shadow over the window: one row per metric and per group")
    public String canaryReport() {
        return run(e -> canary(e).report().text());
    }

    @Descriptor("promote the candidate now; roll back by itself if the guard metric gets worse by more than the margin")
    public String canaryPromote(@Descriptor("guard: grants, waitP50, waitP90, timeouts, utilisation, revocations") String guard,
                                @Descriptor("margin in percent (0-1000)") double marginPercent,
                                @Descriptor("watch period in seconds") long watchSeconds) {
        return run(e -> canary(e).promote(guard, marginPercent, watchSeconds));
    }

    @Descriptor("go back to the selection before the promotion")
    public String canaryRollback() {
        return run(e -> canary(e).rollback());
    }

    @Descriptor("drop the shadow, or end the watch keeping the promotion")
    public String canaryStop() {
        return run(e -> canary(e).stop());
    }

    /** Made on the engine thread, on first use: the canary belongs to that thread. */
    private Canary canary(granary.engine.Engine engine) {
        if (canary == null) {
            canary = new Canary(engine, Clock.system(), new ServicePolicies(context), TIMEOUT_MILLIS, System.out::println);
        }
        return canary;
    }

    private <T> T run(Function<granary.engine.Engine, T> work) {
        try {
            return host.call(work).get(ANSWER_SECONDS, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;   // an InvalidRequestException names the value and the limit
            }
            throw new IllegalStateException(cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("the engine did not answer within " + ANSWER_SECONDS + " s");
        }
    }

    /** Fresh instances of the runtime's policy services (prototype scope: each call a new one). */
    private static final class ServicePolicies implements CandidatePolicies {
        private final BundleContext context;

        ServicePolicies(BundleContext context) {
            this.context = context;
        }

        private Map<String, ServiceReference<Policy>> refs() {
            Map<String, ServiceReference<Policy>> out = new TreeMap<>();
            try {
                for (ServiceReference<Policy> r : context.getServiceReferences(Policy.class, null)) {
                    Object name = r.getProperty("granary.policy.name");
                    if (name != null) {
                        out.merge(String.valueOf(name), r, (a, b) -> a.compareTo(b) >= 0 ? a : b);
                    }
                }
            } catch (org.osgi.framework.InvalidSyntaxException e) {
                throw new IllegalStateException(e);
            }
            return out;
        }

        @Override
        public SortedSet<String> names() {
            return new TreeSet<>(refs().keySet());
        }

        @Override
        public Made make(String name) {
            ServiceReference<Policy> ref = refs().get(name);
            ServiceObjects<Policy> objects = ref == null ? null : context.getServiceObjects(ref);
            Policy p = objects == null ? null : objects.getService();
            if (p == null) {
                throw new granary.api.model.InvalidRequestException("canary", "policies", "'" + name
                        + "' is not installed; policies: " + String.join(", ", names()));
            }
            return new Made(p, ref.getBundle().getSymbolicName() + " " + ref.getBundle().getVersion() + " (shadow)",
                    () -> objects.ungetService(p));
        }
    }
}
