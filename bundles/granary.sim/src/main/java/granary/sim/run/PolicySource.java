package granary.sim.run;

import java.util.List;
import java.util.Map;
import java.util.SortedSet;

import granary.api.spi.Policy;
import granary.api.spi.PolicyDeclaration;

/**
 * Where a replay gets its policies: new, independent instances by name — from the
 * {@link java.util.ServiceLoader} providers on a class path ({@link ClassPathPolicies}), or from
 * the prototype-scoped policy services of an OSGi runtime. Never the instances a live engine uses:
 * those hold its state.
 */
public interface PolicySource {

    /** A new policy instance, where it came from, and how to give it back after the replay. */
    record Created(Policy policy, String origin, Runnable release) {
    }

    /** The names of the policies available, sorted. */
    SortedSet<String> names();

    /**
     * A new instance of the named policy.
     *
     * @param options option name → value as text; a source that cannot pass options refuses any
     * @throws granary.api.model.InvalidRequestException for an unknown name (listing the known ones) or bad options
     */
    Created create(String name, Map<String, String> options);

    /**
     * The declarations of the policies available (their options, reports and commands), sorted by
     * name: the simulator takes its policy flags ({@code OptionSpec.commandLine}) and the reports it
     * samples from them.
     */
    List<PolicyDeclaration> declarations();

    /** The declaration of the named policy, or null. */
    default PolicyDeclaration declaration(String name) {
        return declarations().stream().filter(d -> d.name().equals(name)).findFirst().orElse(null);
    }
}
