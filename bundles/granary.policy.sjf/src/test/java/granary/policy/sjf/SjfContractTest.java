package granary.policy.sjf;

import granary.api.spi.PolicyDeclaration;
import granary.testkit.PolicyContract;

/** The contract every policy runs (granary.testkit.PolicyContract), for sjf. */
class SjfContractTest extends PolicyContract {

    @Override
    protected PolicyDeclaration declaration() {
        return SjfProvider.DECLARATION;
    }
}
