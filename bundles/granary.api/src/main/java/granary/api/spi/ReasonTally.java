package granary.api.spi;

import java.util.Objects;

/**
 * One line of a waiting unit's why-not-scheduled ledger (docs/scheduling.md, "Why is my job not
 * scheduled?"): how often one kind of reason kept the unit from being placed, and the latest such
 * reason with its numbers.
 *
 * @param code         the reason's code
 * @param count        in how many scheduling cycles the engine found this reason for the unit (at
 *                     most one per cycle), since the unit last began to wait; at least 1
 * @param last         the latest reason of this code, with its subject, message, limit and value
 * @param lastAtMillis engine time when the engine last found it; -1 if not known
 */
public record ReasonTally(ReasonCode code, long count, Reason last, long lastAtMillis) {

    public ReasonTally {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(last, "last");
        if (count < 1) {
            throw new IllegalArgumentException("reason tally " + code + ": count must be at least 1, got " + count);
        }
        if (!last.code().equals(code)) {
            throw new IllegalArgumentException("reason tally " + code + ": the last reason has code " + last.code());
        }
    }
}
