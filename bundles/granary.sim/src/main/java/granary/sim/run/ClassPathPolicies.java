package granary.sim.run;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import granary.api.model.InvalidRequestException;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;

/**
 * Policies of the class path, found with {@link ServiceLoader} ({@code META-INF/services/granary.api.spi.PolicyProvider}):
 * every policy bundle on the class path takes part, without being named in code.
 */
public final class ClassPathPolicies implements PolicySource {

    private final Map<String, PolicyDeclaration> providers = new TreeMap<>();

    public ClassPathPolicies() {
        this(ClassPathPolicies.class.getClassLoader());
    }

    public ClassPathPolicies(ClassLoader loader) {
        for (PolicyProvider p : ServiceLoader.load(PolicyProvider.class, loader)) {
            providers.putIfAbsent(p.declaration().name(), p.declaration());
        }
    }

    @Override
    public SortedSet<String> names() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(providers.keySet()));
    }

    @Override
    public List<PolicyDeclaration> declarations() {
        return List.copyOf(providers.values());
    }

    /** Option name → description of a policy, for usage texts. */
    public Map<String, String> options(String name) {
        PolicyDeclaration p = providers.get(name);
        Map<String, String> out = new TreeMap<>();
        if (p != null) {
            p.options().forEach(o -> out.put(o.name(), o.description() + " (default " + o.text(o.defaultValue()) + ")"));
        }
        return out;
    }

    @Override
    public Created create(String name, Map<String, String> options) {
        PolicyDeclaration p = providers.get(name);
        if (p == null) {
            throw new InvalidRequestException("policy " + name, "name", "'" + name + "' is not installed; policies: "
                    + String.join(", ", providers.keySet()));
        }
        return new Created(p.create(options), p.type().getPackageName() + " (class path)", () -> { });
    }
}
