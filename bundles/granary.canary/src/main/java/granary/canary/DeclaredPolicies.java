package granary.canary;

import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

import granary.api.model.InvalidRequestException;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;

/** Candidate policies made from declarations with their default options: the class path's way. */
public final class DeclaredPolicies implements CandidatePolicies {

    private final Map<String, PolicyDeclaration> declarations = new TreeMap<>();

    public DeclaredPolicies(Collection<PolicyDeclaration> declarations) {
        declarations.forEach(d -> this.declarations.putIfAbsent(d.name(), d));
    }

    /** Every {@link PolicyProvider} {@link ServiceLoader} finds through {@code loader}. */
    public static DeclaredPolicies onClassPath(ClassLoader loader) {
        return new DeclaredPolicies(ServiceLoader.load(PolicyProvider.class, loader).stream()
                .map(p -> p.get().declaration()).toList());
    }

    @Override
    public SortedSet<String> names() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(declarations.keySet()));
    }

    @Override
    public Made make(String name) {
        PolicyDeclaration d = declarations.get(name);
        if (d == null) {
            throw Canary.unknownPolicy(name, names());
        }
        return new Made(d.create(Map.of()), d.type().getPackageName() + " (class path)", () -> { });
    }
}
