package granary.policy.fifo;

import granary.api.spi.OptionSpec;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;

/** The FIFO policy, declared once: its name, options and how it is made (docs/policies.md, "fifo"). */
public final class FifoProvider implements PolicyProvider {

    static final OptionSpec<Boolean> PRIORITY_FIRST = OptionSpec.flag("priorityFirst", true,
            "Order by priority before submit time (false: strict arrival order).");

    public static final PolicyDeclaration DECLARATION = PolicyDeclaration.of(FifoPolicy.NAME, FifoPolicy.class)
            .description("Unit order: higher priority first, then earlier submission.")
            .option(PRIORITY_FIRST)
            .factory(s -> new FifoPolicy(s.get(PRIORITY_FIRST)))
            .build();

    @Override
    public PolicyDeclaration declaration() {
        return DECLARATION;
    }
}
