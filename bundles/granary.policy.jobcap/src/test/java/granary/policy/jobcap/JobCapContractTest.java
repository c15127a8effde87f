package granary.policy.jobcap;

import java.nio.file.Path;
import java.util.Map;

import granary.api.spi.PolicyDeclaration;
import granary.testkit.PolicyContract;

/** The contract every policy runs (granary.testkit.PolicyContract), for jobcap: a cap of 3 slots, so jobs of 4 wait at it. */
class JobCapContractTest extends PolicyContract {

    @Override
    protected PolicyDeclaration declaration() {
        return JobCapProvider.DECLARATION;
    }

    @Override
    protected Map<String, String> options(Path dir) {
        return Map.of("maxSlots", "3");
    }
}
