package granary.engine.osgi;

import java.util.Dictionary;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.Map;
import java.util.stream.Collectors;

import granary.api.event.PolicyFailed;
import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;
import granary.api.spi.ExtensionPoint;
import granary.api.spi.Policy;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;
import granary.api.spi.Settings;

import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ManagedService;
import org.osgi.service.metatype.MetaTypeProvider;

/**
 * One declared policy hosted in the runtime, registered in its own bundle's name: its
 * {@link PolicyProvider}, a {@link ManagedService} for its PID and a {@link MetaTypeProvider}
 * describing the PID, both from the declaration; and, for every configuration the declaration
 * accepts, a prototype-scoped {@link Policy} service (each user — the engine, a replay — gets its
 * own instance).
 *
 * <p>A new configuration is checked first (options, then one instance is made, so that a missing
 * or invalid file is found now). Accepted: the new service is registered <em>before</em> the old
 * one goes, so the engine swaps instances between two decisions without an exclusive point falling
 * back in between. Refused: whatever is registered stays, and the refusal goes to
 * {@link PolicyHealth} naming the PID, the option and the problem.
 */
final class HostedPolicy implements ManagedService {

    /** Service property naming the policy on its services. */
    static final String NAME_PROPERTY = "granary.policy.name";
    /** Service property on the provider service while the policy's configuration is refused. */
    static final String PROBLEM_PROPERTY = "granary.policy.problem";

    private final BundleContext context;
    private final PolicyProvider provider;
    private final PolicyDeclaration declaration;
    private final PolicyHealth health;
    private ServiceRegistration<?> providerRegistration;
    private ServiceRegistration<?> configRegistration;
    private ServiceRegistration<Policy> policyRegistration;

    HostedPolicy(BundleContext context, PolicyProvider provider, PolicyHealth health) {
        this.context = context;
        this.provider = provider;
        this.declaration = provider.declaration();
        this.health = health;
    }

    void open() {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(NAME_PROPERTY, declaration.name());
        providerRegistration = context.registerService(PolicyProvider.class, provider, props);
        Dictionary<String, Object> config = new Hashtable<>();
        config.put(Constants.SERVICE_PID, declaration.pid());
        config.put(MetaTypeProvider.METATYPE_PID, declaration.pid());
        // Config Admin calls updated() now (null without a configuration: the declared defaults)
        configRegistration = context.registerService(new String[] {ManagedService.class.getName(),
                MetaTypeProvider.class.getName()}, new Registered(this, new DeclaredMetaType(declaration)), config);
    }

    synchronized void close() {
        unregister(policyRegistration);
        policyRegistration = null;
        unregister(configRegistration);
        unregister(providerRegistration);
    }

    /** Called by Config Admin on its own thread, never concurrently for one PID. */
    @Override
    public synchronized void updated(Dictionary<String, ?> properties) {
        Settings settings;
        try {
            settings = declaration.settings(options(properties));
            declaration.create(settings);   // finds a missing or invalid file now, not in the engine
        } catch (InvalidRequestException e) {
            refused(refusal(e));
            return;
        } catch (RuntimeException e) {
            refused("configuration " + declaration.pid() + " refused: " + e);
            return;
        }
        ServiceRegistration<Policy> old = policyRegistration;
        policyRegistration = context.registerService(Policy.class, new PolicyFactory(declaration, settings),
                serviceProperties());
        unregister(old);
        providerProperties(null);
    }

    /**
     * A refused configuration: the engine hears of it, and the provider service carries it as
     * {@code granary.policy.problem} so that the launcher (outside the framework) sees it at start.
     */
    private void refused(String problem) {
        health.failed(new PolicyFailed(declaration.name(), problem));
        providerProperties(problem);
    }

    private void providerProperties(String problem) {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(NAME_PROPERTY, declaration.name());
        if (problem != null) {
            props.put(PROBLEM_PROPERTY, problem);
        }
        try {
            if (providerRegistration != null) {
                providerRegistration.setProperties(props);
            }
        } catch (IllegalStateException closed) {
            // the policy bundle is stopping
        }
    }

    /**
     * The options of a configuration: its properties without the framework's own (their names have
     * a dot: {@code service.pid}, {@code felix.fileinstall.filename}); a misspelt option is kept, so
     * that the declaration refuses it by name.
     */
    static Map<String, Object> options(Dictionary<String, ?> properties) {
        Map<String, Object> options = new HashMap<>();
        if (properties != null) {
            for (Enumeration<String> keys = properties.keys(); keys.hasMoreElements(); ) {
                String k = keys.nextElement();
                if (!k.contains(".")) {
                    options.put(k, properties.get(k));
                }
            }
        }
        return options;
    }

    private String refusal(InvalidRequestException e) {
        return "configuration " + declaration.pid() + " refused: " + e.problems().stream()
                .map(Problem::toString).collect(Collectors.joining("; "));
    }

    private Dictionary<String, Object> serviceProperties() {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(NAME_PROPERTY, declaration.name());
        props.put("granary.policy.points", declaration.points().stream().map(ExtensionPoint::id).toArray(String[]::new));
        return props;
    }

    private static void unregister(ServiceRegistration<?> r) {
        if (r != null) {
            try {
                r.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the policy bundle is stopping: the framework took its services away first
            }
        }
    }

    /** The object registered for the PID: Config Admin and Metatype each call their half. */
    private record Registered(ManagedService config, MetaTypeProvider metatype) implements ManagedService, MetaTypeProvider {
        @Override
        public void updated(Dictionary<String, ?> properties) throws org.osgi.service.cm.ConfigurationException {
            config.updated(properties);
        }

        @Override
        public org.osgi.service.metatype.ObjectClassDefinition getObjectClassDefinition(String id, String locale) {
            return metatype.getObjectClassDefinition(id, locale);
        }

        @Override
        public String[] getLocales() {
            return metatype.getLocales();
        }
    }
}
