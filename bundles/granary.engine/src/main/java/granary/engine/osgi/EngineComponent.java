package granary.engine.osgi;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;

import granary.api.Clock;
import granary.api.Receipt;
import granary.api.Scheduler;
import granary.api.event.InputEvent;
import granary.api.event.OutputEvent;
import granary.api.event.PolicyInstalled;
import granary.api.event.PolicyUninstalled;
import granary.api.spi.EngineView;
import granary.api.spi.Policy;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.engine.EventLoop;

import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;
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
        @AttributeDefinition(description = "Policies selected at start, in order. On an exclusive extension point "
                + "a later entry wins. Names not installed take effect when their bundle starts.")
        String[] policies() default {"fifo", "queues", "quota", "gang", "reservation"};

        @AttributeDefinition(description = "Installed policies that stand in, in this order, on an exclusive point "
                + "whose selected policy is not installed.")
        String[] fallback() default {"fifo", "fair", "submitwindow"};

        @AttributeDefinition(description = "Idle tick period in milliseconds: time-driven policies act at least this often.")
        long tickMillis() default 1000;

        @AttributeDefinition(description = "Strict mode: check every invariant after every event (slow; for tests).")
        boolean checkInvariants() default false;
    }

    private static final long UNBIND_WAIT_SECONDS = 30;

    private final Engine engine = new Engine(Clock.system(), EngineOptions.DEFAULTS);
    private final EventLoop loop = new EventLoop(engine, 1000, "granary-engine");

    @Activate
    void activate(Config config) {
        apply(config);
        loop.start();
    }

    @Modified
    void modified(Config config) {
        apply(config);
    }

    private void apply(Config config) {
        loop.tickMillis(config.tickMillis());
        EngineOptions options = new EngineOptions(List.of(config.policies()), List.of(config.fallback()),
                config.checkInvariants());
        loop.call(e -> e.configure(options));
    }

    @Deactivate
    void deactivate() {
        loop.close();
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
    public AutoCloseable subscribe(Consumer<? super OutputEvent> listener) {
        return loop.subscribe(listener);
    }
}
