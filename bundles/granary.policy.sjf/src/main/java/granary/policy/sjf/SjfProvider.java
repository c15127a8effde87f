package granary.policy.sjf;

import granary.api.spi.OptionSpec;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;

/** The SJF policy, declared once: its name, options and how it is made. */
public final class SjfProvider implements PolicyProvider {

    static final OptionSpec<Boolean> PRIORITY_FIRST = OptionSpec.flag("priorityFirst", true,
            "Order by priority before job size (false: size only).");

    public static final PolicyDeclaration DECLARATION = PolicyDeclaration.of(SjfPolicy.NAME, SjfPolicy.class)
            .description("Unit order: higher priority first, then the job with fewer requested slots, then earlier submission.")
            .option(PRIORITY_FIRST)
            .factory(s -> new SjfPolicy(s.get(PRIORITY_FIRST)))
            .build();

    @Override
    public PolicyDeclaration declaration() {
        return DECLARATION;
    }
}
