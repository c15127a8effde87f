package granary.policy.queues;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import granary.api.spi.PolicyDeclaration;
import granary.testkit.PolicyContract;
import granary.testkit.TestFiles;

/** The contract every policy runs (granary.testkit.PolicyContract), for queues: two queues, one capped. */
class QueuesContractTest extends PolicyContract {

    @Override
    protected PolicyDeclaration declaration() {
        return QueuesProvider.DECLARATION;
    }

    @Override
    protected Map<String, String> options(Path dir) {
        Path file = TestFiles.write(dir, "queues.json", """
                {"queues": {"a": {"capacity": "50%", "maxCapacity": "75%"}, "b": {"capacity": "50%"}}}
                """);
        return Map.of("file", file.toString());
    }

    @Override
    protected List<String> groups() {
        return List.of("root.a", "root.b");
    }
}
