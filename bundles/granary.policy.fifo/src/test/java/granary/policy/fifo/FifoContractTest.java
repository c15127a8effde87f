package granary.policy.fifo;

import granary.api.spi.PolicyDeclaration;
import granary.testkit.PolicyContract;

/** The contract every policy runs (granary.testkit.PolicyContract), for fifo. */
class FifoContractTest extends PolicyContract {

    @Override
    protected PolicyDeclaration declaration() {
        return FifoProvider.DECLARATION;
    }
}
