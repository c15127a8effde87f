package granary.policy.quota;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import granary.api.spi.PolicyDeclaration;
import granary.testkit.PolicyContract;
import granary.testkit.TestFiles;

/** The contract every policy runs (granary.testkit.PolicyContract), for quota: two funded groups on 12 slots. */
class QuotaContractTest extends PolicyContract {

    @Override
    protected PolicyDeclaration declaration() {
        return QuotaProvider.DECLARATION;
    }

    @Override
    protected Map<String, String> options(Path dir) {
        Path table = TestFiles.write(dir, "quota.json", """
                { "default": { "g1": {"GroupId":1,"MaxQuota":8,"MinQuota":4},
                               "g2": {"GroupId":2,"MaxQuota":8,"MinQuota":4} } }
                """);
        return Map.of("tableFile", table.toString(), "workerSpans", "default:12");
    }

    @Override
    protected List<String> groups() {
        return List.of("g1", "g2");
    }
}
