package granary.policy.gang;

import granary.api.spi.PolicyDeclaration;
import granary.testkit.PolicyContract;

/** The contract every policy runs (granary.testkit.PolicyContract), for gang. */
class GangContractTest extends PolicyContract {

    @Override
    protected PolicyDeclaration declaration() {
        return GangProvider.DECLARATION;
    }
}
