package granary.policy.fair;

import granary.api.spi.OptionSpec;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;

/** The FAIR policy, declared once: its name, options and how it is made (docs/policies.md, "fair"). */
public final class FairProvider implements PolicyProvider {

    static final OptionSpec<FairPolicy.Measure> MEASURE = OptionSpec.choice("measure", FairPolicy.Measure.class,
            FairPolicy.Measure.SLOTS, "What 'fewer slots' counts: SLOTS held, or FRACTION of the desired slots held.");

    public static final PolicyDeclaration DECLARATION = PolicyDeclaration.of(FairPolicy.NAME, FairPolicy.class)
            .description("Unit order: higher priority first, then fewest slots held, then earlier submission.")
            .option(MEASURE)
            .factory(s -> new FairPolicy(s.get(MEASURE)))
            .build();

    @Override
    public PolicyDeclaration declaration() {
        return DECLARATION;
    }
}
