package granary.policy.queues;

import granary.api.spi.OptionSpec;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;

/**
 * The queues policy, declared once (docs/policies.md, "queues"). A tree file that cannot be read or
 * parsed refuses the settings with the file's problems, so a half-configured policy never starts; a
 * tree can also be replaced at run time through {@link QueuesPolicy#reconfigure}.
 */
public final class QueuesProvider implements PolicyProvider {

    static final OptionSpec<String> FILE = OptionSpec.text("file", "",
            "Path of the queue tree JSON file (docs/formats.md, \"Queue tree\"); empty: no tree, job groups are "
                    + "taken as given and nothing is limited.").commandLine("queues");

    public static final PolicyDeclaration DECLARATION = PolicyDeclaration.of(QueuesPolicy.NAME, QueuesPolicy.class)
            .description("Hierarchical queues addressed by full path: resolution, maximum capacity and running-job "
                    + "limits, hierarchical group order.")
            .option(FILE)
            .factory(s -> new QueuesPolicy(s.read(FILE, QueueFile::read)))
            .with(QueuesReporting::declare)
            .build();

    @Override
    public PolicyDeclaration declaration() {
        return DECLARATION;
    }
}
