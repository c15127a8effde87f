package granary.policy.reservation;

import granary.api.spi.OptionSpec;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;
import granary.api.spi.ReasonCode;
import granary.api.spi.ResourceSpec;

import java.util.List;

/** The reservation policy, declared once (docs/policies.md, "reservation"). */
public final class ReservationProvider implements PolicyProvider {

    static final OptionSpec<Long> THRESHOLD_MILLIS = OptionSpec.number("thresholdMillis",
            ReservationOptions.DEFAULT_THRESHOLD_MILLIS, 0, Long.MAX_VALUE,
            "A job that has starved (waited without getting a new slot) this long (ms) may be elected target. "
                    + "Default 60 s: six times the 10 s wait-for-resource mark; lower reserves for ordinary waits, "
                    + "higher lets a starving job wait longer.");
    static final OptionSpec<Mode> MODE = OptionSpec.choice("mode", Mode.class, Mode.SPEC_FIRST,
            "SPEC_FIRST: nodes by capacity in the target's main resource (fewest nodes, stable). "
                    + "IDLE_FIRST: by free amount (frees fastest, less stable).");
    static final OptionSpec<Long> TIMEOUT_MILLIS = OptionSpec.number("timeoutMillis",
            ReservationOptions.DEFAULT_TIMEOUT_MILLIS, 0, Long.MAX_VALUE,
            "A reservation not fulfilled after this long (ms) is released and its target waits the threshold again "
                    + "before it can be re-elected. 0 = never. Default 10 minutes.");

    /** A node locked for the reservation's target: other jobs' units wait (a node filter's refusal). */
    static final ReasonCode LOCKED = ReasonCode.of("LOCKED", "node locked", "The nodes with room are locked for another"
            + " job by a reservation; they open when that job has started or the reservation ends.");

    public static final PolicyDeclaration DECLARATION = PolicyDeclaration.of(ReservationPolicy.NAME, ReservationPolicy.class)
            .description("Reservation against starvation: elect a starving job, lock a node group for it, one node per cycle.")
            .option(THRESHOLD_MILLIS)
            .option(MODE)
            .option(TIMEOUT_MILLIS)
            .factory(s -> new ReservationPolicy(new ReservationOptions(s.get(THRESHOLD_MILLIS), s.get(MODE),
                    s.get(TIMEOUT_MILLIS))))
            .with(ReservationReporting::declare)
            .reason(LOCKED)
            .resource(ResourceSpec.reports("/reservations", "listReservations",
                    "The reservation policy's reports: reserved nodes and waiting targets", List.of()))
            .build();

    @Override
    public PolicyDeclaration declaration() {
        return DECLARATION;
    }
}
