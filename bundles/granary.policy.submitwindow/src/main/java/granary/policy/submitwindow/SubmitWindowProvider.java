package granary.policy.submitwindow;

import granary.api.spi.OptionSpec;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;

/** The SubmitWindow policy, declared once (docs/policies.md, "submitwindow"). */
public final class SubmitWindowProvider implements PolicyProvider {

    static final OptionSpec<Long> WINDOW_MILLIS = OptionSpec.number("windowMillis", SubmitWindowPolicy.DEFAULT_WINDOW_MILLIS,
            1, 24L * 3600 * 1000, "Width W of a submit window in milliseconds.");

    public static final PolicyDeclaration DECLARATION = PolicyDeclaration.of(SubmitWindowPolicy.NAME, SubmitWindowPolicy.class)
            .description("Unit order: priority, submit window, smaller all-or-nothing request, submit time.")
            .option(WINDOW_MILLIS)
            .factory(s -> new SubmitWindowPolicy(s.get(WINDOW_MILLIS)))
            .build();

    @Override
    public PolicyDeclaration declaration() {
        return DECLARATION;
    }
}
