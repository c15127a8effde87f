package granary.policy.gang;

import granary.api.spi.OptionSpec;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;

/** The gang policy, declared once (docs/policies.md, "gang"). */
public final class GangProvider implements PolicyProvider {

    static final OptionSpec<Packing> PACKING = OptionSpec.choice("packing", Packing.class, Packing.BEST_FIT,
            "How nodes are chosen inside a locality step. BEST_FIT: nodes with room for the fewest slots first, so "
                    + "whole nodes stay free for big gangs. FIRST_FIT: in cluster order.");
    static final OptionSpec<Boolean> REFUSE_NEVER_FITTING = OptionSpec.flag("refuseNeverFitting", true,
            "Refuse at submit a gang that can never fit: more than the cluster's capacity, or more slots than the "
                    + "nodes a unit may use can hold. False: let it wait (a cluster that grows on demand).");

    public static final PolicyDeclaration DECLARATION = PolicyDeclaration.of(GangPolicy.NAME, GangPolicy.class)
            .description("All-or-nothing placement: a gang is granted whole or not at all, best fit.")
            .option(PACKING)
            .option(REFUSE_NEVER_FITTING)
            .factory(s -> new GangPolicy(s.get(PACKING), s.get(REFUSE_NEVER_FITTING)))
            .build();

    @Override
    public PolicyDeclaration declaration() {
        return DECLARATION;
    }
}
