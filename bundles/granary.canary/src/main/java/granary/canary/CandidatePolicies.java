package granary.canary;

import java.util.SortedSet;

import granary.api.spi.Policy;

/**
 * Where a shadow's fresh policy instances come from: in the runtime the prototype-scoped policy
 * services the live engine binds too (so a candidate has the live configuration of its policy), on a
 * class path the {@code PolicyProvider}s that {@link java.util.ServiceLoader} finds. A shadow never
 * shares an instance with the live engine: a policy holds live state (docs/canary.md, "The shadow").
 */
public interface CandidatePolicies {

    /** A new instance, where it comes from, and how to give it back. */
    record Made(Policy policy, String origin, Runnable release) {
    }

    /** The names of the policies that can be made now. */
    SortedSet<String> names();

    /**
     * A new instance of the named policy.
     *
     * @throws granary.api.model.InvalidRequestException naming the policy and the names there are
     */
    Made make(String name);
}
