package granary.policy.reservation;

import java.util.Map;

import granary.api.InvalidRequestException;
import granary.api.Options;
import granary.api.spi.Policy;
import granary.api.spi.PolicyProvider;

/**
 * Makes reservation policies on a class path (see {@link PolicyProvider}). Options:
 * {@code thresholdMillis}, {@code mode} ({@code SPEC_FIRST} or {@code IDLE_FIRST}), {@code timeoutMillis}.
 */
public class ReservationProvider implements PolicyProvider {

    @Override
    public String name() {
        return ReservationPolicy.NAME;
    }

    @Override
    public Policy create(Map<String, String> options) {
        String subject = "policy " + ReservationPolicy.NAME;
        Options o = new Options(subject, options, options().keySet());
        long threshold = o.number("thresholdMillis", ReservationOptions.DEFAULT_THRESHOLD_MILLIS);
        long timeout = o.number("timeoutMillis", ReservationOptions.DEFAULT_TIMEOUT_MILLIS);
        if (threshold < 0) {
            throw new InvalidRequestException(subject, "thresholdMillis", "must be 0 or more, got " + threshold);
        }
        if (timeout < 0) {
            throw new InvalidRequestException(subject, "timeoutMillis", "must be 0 (never) or more, got " + timeout);
        }
        return new ReservationPolicy(new ReservationOptions(threshold, o.choice("mode", Mode.class, Mode.SPEC_FIRST),
                timeout));
    }

    @Override
    public Map<String, String> options() {
        return Map.of("thresholdMillis", "a job waiting this long may be elected (default 60000)",
                "mode", "SPEC_FIRST (default: nodes by capacity) or IDLE_FIRST (by free amount)",
                "timeoutMillis", "release a reservation not fulfilled after this long; 0 = never (default 600000)");
    }
}
