package granary.policy.reservation;

import granary.api.spi.PolicyDeclaration;
import granary.testkit.PolicyContract;

/** The contract every policy runs (granary.testkit.PolicyContract), for reservation. */
class ReservationContractTest extends PolicyContract {

    @Override
    protected PolicyDeclaration declaration() {
        return ReservationProvider.DECLARATION;
    }
}
