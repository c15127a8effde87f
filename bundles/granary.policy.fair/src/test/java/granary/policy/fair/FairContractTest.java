package granary.policy.fair;

import granary.api.spi.PolicyDeclaration;
import granary.testkit.PolicyContract;

/** The contract every policy runs (granary.testkit.PolicyContract), for fair. */
class FairContractTest extends PolicyContract {

    @Override
    protected PolicyDeclaration declaration() {
        return FairProvider.DECLARATION;
    }
}
