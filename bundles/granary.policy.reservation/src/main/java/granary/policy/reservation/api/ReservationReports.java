package granary.policy.reservation.api;

import granary.api.spi.EngineView;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Implemented by a reservation policy so that the console and the HTTP API can read it (through
 * {@link EngineView#policy}). Called on the engine thread.
 */
@ConsumerType
public interface ReservationReports {

    ReservationReport reservation(EngineView view);
}
