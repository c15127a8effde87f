package granary.engine.state;

import granary.api.spi.Reason;
import granary.api.spi.ReasonCode;
import granary.api.spi.ReasonTally;

/**
 * One line of a unit's why-not-scheduled ledger (docs/scheduling.md, "Why is my job not
 * scheduled?"): a reason code, in how many cycles it was found, its latest reason, and when. Mutable,
 * engine thread only. A unit keeps one per code it has seen, chained (most units see one or two
 * codes: one object each, 48 bytes, and nothing else).
 */
final class WaitTally {

    final ReasonCode code;
    /** Cycles in which the code was found; stops at {@code Integer.MAX_VALUE}. */
    int count;
    Reason last;
    /** Engine time the code was last found. */
    long at;
    /** Engine time {@link #last} was recorded: an engine-built text older than a second is built again. */
    long builtAt;
    /** The cycle it was last counted in: a code counts once per cycle however often a cycle finds it. */
    int cycle;
    /** The unit's tally of another code, or null. */
    WaitTally next;

    WaitTally(ReasonCode code) {
        this.code = code;
    }

    /** Counts it for {@code cycle} at {@code now}, once per cycle. */
    void found(int cycle, long now) {
        if (count == 0 || this.cycle != cycle) {
            count = count == Integer.MAX_VALUE ? count : count + 1;
            this.cycle = cycle;
        }
        at = now;
    }

    ReasonTally view() {
        return new ReasonTally(code, count, last, at);
    }
}
