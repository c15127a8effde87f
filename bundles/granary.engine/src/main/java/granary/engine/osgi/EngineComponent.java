package granary.engine.osgi;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

import granary.api.model.Clock;
import granary.api.event.Receipt;
import granary.api.event.Scheduler;
import granary.api.event.ClockTick;
import granary.api.event.InputEvent;
import granary.api.event.OutputEvent;
import granary.api.event.PolicyInstalled;
import granary.api.event.PolicyUninstalled;
import granary.api.spi.EngineView;
import granary.api.spi.Policy;
import granary.engine.Engine;
import granary.engine.EngineHost;
import granary.engine.EngineOptions;
import granary.engine.EventLoop;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The engine as a DS component: the {@link Scheduler} service of the runtime. Policies are bound
 * dynamically and greedily; binding and unbinding go through the event loop, so a swap happens
 * between two decisions, and unbinding waits until the engine no longer uses the policy.
 */
@Component(immediate = true, service = Scheduler.class, configurationPid = EngineComponent.PID)
@Designate(ocd = EngineComponent.Config.class)
public class EngineComponent implements Scheduler {

    public static final String PID = "granary.engine";

    @ObjectClassDefinition(name = "Granary engine", description = "The scheduling engine of this runtime.")
    public @interface Config {
        @AttributeDefinition(required = false, description = "Policies selected at start, in order. On an exclusive "
                + "extension point a later entry wins. Names not installed take effect when their bundle starts. "
                + "Not set: the framework property granary.engine.policies (comma-separated), which the runtime's "
                + "feature sets; the engine itself names no policy.")
        String[] policies();

        @AttributeDefinition(required = false, description = "Installed policies that stand in, in this order, on an "
                + "exclusive point whose selected policy is not installed. Not set: the framework property "
                + "granary.engine.fallback.")
        String[] fallback();

        @AttributeDefinition(description = "Idle tick period in milliseconds: time-driven policies act at least this often.")
        long tickMillis() default 1000;

        @AttributeDefinition(description = "Strict mode: check every invariant after every event (slow; for tests).")
        boolean checkInvariants() default false;

        @AttributeDefinition(description = "Keep every waiting unit's why-not-scheduled ledger: its reasons counted "
                + "by code, with the numbers (granary:why). Off, a unit keeps only its latest reason.")
        boolean whyLedger() default true;
    }

    private static final long UNBIND_WAIT_SECONDS = 30;

    /** Builds a new unit order's queues while the engine keeps scheduling (docs/scheduling.md, "Swapping the order off the engine thread"). */
    private final ExecutorService reorders = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "granary-engine-reorder");
        t.setDaemon(true);
        return t;
    });
    /**
     * Swaps with up to this many waiting units re-sort on the engine thread at once: about a
     * millisecond (docs/scheduling.md, "Swapping the order off the engine thread").
     */
    static final int REORDER_AT_ONCE_UP_TO = 10_000;
    private final Engine engine = new Engine(Clock.system(), EngineOptions.DEFAULTS, this::reorder, REORDER_AT_ONCE_UP_TO);
    private final EventLoop loop = new EventLoop(engine, 1000, "granary-engine");

    /** Runs a build on the reorder thread, then sends a tick: the new order takes effect at the next event. */
    private void reorder(Runnable build) {
        reorders.execute(() -> {
            build.run();
            loop.submit(new ClockTick());
        });
    }

    /** Framework properties with the runtime's default selection and fallback (comma-separated). */
    static final String POLICIES_PROPERTY = "granary.engine.policies";
    static final String FALLBACK_PROPERTY = "granary.engine.fallback";

    private BundleContext context;
    private ServiceRegistration<EngineHost> host;

    /**
     * Also registers the loop as an {@link EngineHost} for tools beside the live engine (docs/canary.md),
     * as a registration of its own: a client of the {@code Scheduler} need not see the engine's package.
     */
    @Activate
    void activate(Config config, Map<String, Object> properties, BundleContext bundleContext) {
        this.context = bundleContext;
        apply(config, properties);
        loop.start();
        host = bundleContext.registerService(EngineHost.class, loop, null);
    }

    @Modified
    void modified(Config config, Map<String, Object> properties) {
        apply(config, properties);
    }

    private void apply(Config config, Map<String, Object> properties) {
        loop.tickMillis(config.tickMillis());
        EngineOptions options = new EngineOptions(
                names(properties.containsKey("policies") ? config.policies() : null, POLICIES_PROPERTY),
                names(properties.containsKey("fallback") ? config.fallback() : null, FALLBACK_PROPERTY),
                config.checkInvariants(), config.whyLedger());
        loop.call(e -> e.configure(options));
    }

    /** The configured names, or those of the framework property when the setting is absent. */
    private List<String> names(String[] configured, String property) {
        if (configured != null) {
            return List.of(configured);
        }
        String text = context.getProperty(property);
        if (text == null || text.isBlank()) {
            return List.of();
        }
        return Arrays.stream(text.split(",")).map(String::trim).filter(n -> !n.isEmpty()).toList();
    }

    @Deactivate
    void deactivate() {
        try {
            host.unregister();
        } catch (IllegalStateException alreadyGone) {
            // the bundle is stopping: the framework unregistered it first
        }
        loop.close();
        reorders.shutdownNow();
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindPolicy(Policy policy, ServiceReference<Policy> ref) {
        loop.submit(new PolicyInstalled(policy, origin(ref)));
    }

    void unbindPolicy(Policy policy) {
        CompletableFuture<Receipt> done = loop.submit(new PolicyUninstalled(policy));
        if (loop.started() && !loop.onLoopThread()) {
            try {
                done.get(UNBIND_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                // the engine refused or is stopping: either way it no longer uses the policy
            }
        }
    }

    private static String origin(ServiceReference<?> ref) {
        Bundle b = ref.getBundle();
        return b == null ? "unknown" : b.getSymbolicName() + " " + b.getVersion();
    }

    @Override
    public CompletableFuture<Receipt> submit(InputEvent event) {
        return loop.submit(event);
    }

    @Override
    public <T> CompletableFuture<T> query(Function<? super EngineView, T> query) {
        return loop.query(query);
    }

    @Override
    public <T> CompletableFuture<T> onEngine(Function<? super granary.api.event.EngineAccess, T> work) {
        return loop.onEngine(work);
    }

    @Override
    public AutoCloseable subscribe(Consumer<? super OutputEvent> listener) {
        return loop.subscribe(listener);
    }
}
