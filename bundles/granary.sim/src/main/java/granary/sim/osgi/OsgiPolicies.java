package granary.sim.osgi;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

import granary.api.model.InvalidRequestException;
import granary.api.spi.Policy;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;
import granary.sim.run.PolicySource;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceObjects;
import org.osgi.framework.ServiceReference;

/**
 * The policies installed in the runtime, as fresh instances: every policy component is a
 * prototype-scoped DS service, so {@code getServiceObjects(ref).getService()} makes a new instance
 * (with the component's configuration) that no live engine has ever seen; it is given back after
 * the replay. A policy registered in another scope would hand out the live engine's instance, with
 * its state: it is refused.
 */
final class OsgiPolicies implements PolicySource {

    static final String NAME_PROPERTY = "granary.policy.name";

    private final BundleContext context;

    OsgiPolicies(BundleContext context) {
        this.context = context;
    }

    private List<ServiceReference<Policy>> references() {
        try {
            Collection<ServiceReference<Policy>> refs = context.getServiceReferences(Policy.class, null);
            List<ServiceReference<Policy>> list = new ArrayList<>(refs);
            list.sort(Comparator.reverseOrder());   // highest ranking first
            return list;
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);   // no filter is given
        }
    }

    private String name(ServiceReference<Policy> ref) {
        Object n = ref.getProperty(NAME_PROPERTY);
        if (n instanceof String s) {
            return s;
        }
        ServiceObjects<Policy> so = context.getServiceObjects(ref);
        Policy p = so == null ? null : so.getService();
        if (p == null) {
            return null;
        }
        try {
            return p.name();
        } finally {
            so.ungetService(p);
        }
    }

    @Override
    public SortedSet<String> names() {
        SortedSet<String> names = new TreeSet<>();
        for (ServiceReference<Policy> ref : references()) {
            String n = name(ref);
            if (n != null) {
                names.add(n);
            }
        }
        return Collections.unmodifiableSortedSet(names);
    }

    @Override
    public Created create(String name, Map<String, String> options) {
        if (!options.isEmpty()) {
            throw new InvalidRequestException("policy " + name, options.keySet().iterator().next(), "options are not given "
                    + "on the command inside the runtime: configure the policy (Config Admin PID granary.policy." + name + ")");
        }
        for (ServiceReference<Policy> ref : references()) {
            if (name.equals(name(ref))) {
                return create(name, ref);
            }
        }
        throw new InvalidRequestException("policy " + name, "name", "'" + name + "' is not installed; policies: "
                + String.join(", ", names()));
    }

    private Created create(String name, ServiceReference<Policy> ref) {
        if (!Constants.SCOPE_PROTOTYPE.equals(ref.getProperty(Constants.SERVICE_SCOPE))) {
            throw new InvalidRequestException("policy " + name, "scope", "is registered with scope "
                    + ref.getProperty(Constants.SERVICE_SCOPE) + ", not prototype: the runtime cannot make a fresh instance "
                    + "for a replay (it would share the live engine's)");
        }
        ServiceObjects<Policy> so = context.getServiceObjects(ref);
        Policy p = so == null ? null : so.getService();
        if (p == null) {
            throw new InvalidRequestException("policy " + name, "service", "went away (its bundle stopped)");
        }
        Bundle b = ref.getBundle();
        String origin = b == null ? "unknown" : b.getSymbolicName() + " " + b.getVersion();
        return new Created(p, origin, () -> {
            try {
                so.ungetService(p);
            } catch (IllegalStateException | IllegalArgumentException gone) {
                // the policy's bundle stopped during the replay: nothing is left to give back
            }
        });
    }

    /** From the {@code PolicyProvider} services the engine's policy extender registers, one per policy bundle. */
    @Override
    public List<PolicyDeclaration> declarations() {
        List<PolicyDeclaration> out = new ArrayList<>();
        try {
            for (ServiceReference<PolicyProvider> ref : context.getServiceReferences(PolicyProvider.class, null)) {
                PolicyProvider p = context.getService(ref);
                if (p != null) {
                    try {
                        out.add(p.declaration());
                    } finally {
                        context.ungetService(ref);
                    }
                }
            }
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);   // no filter is given
        }
        out.sort(Comparator.comparing(PolicyDeclaration::name));
        return out;
    }
}
