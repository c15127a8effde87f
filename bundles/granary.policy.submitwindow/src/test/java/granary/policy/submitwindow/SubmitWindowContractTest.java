package granary.policy.submitwindow;

import granary.api.spi.PolicyDeclaration;
import granary.testkit.PolicyContract;

/** The contract every policy runs (granary.testkit.PolicyContract), for submitwindow. */
class SubmitWindowContractTest extends PolicyContract {

    @Override
    protected PolicyDeclaration declaration() {
        return SubmitWindowProvider.DECLARATION;
    }
}
