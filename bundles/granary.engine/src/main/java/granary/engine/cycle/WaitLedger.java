package granary.engine.cycle;

import java.util.function.LongSupplier;

import granary.api.spi.Reason;
import granary.api.spi.ReasonCode;
import granary.engine.state.UnitState;

/**
 * The one way into the why-not-scheduled ledger (docs/scheduling.md, "Why is my job not
 * scheduled?"): every reason a pass finds for a waiting unit — a policy's verdict, a node that
 * refuses it, no room, a gang that does not fit whole — is recorded here. It becomes the unit's latest
 * reason ({@code UnitView.waitReason()}); with the ledger on it also counts, once per cycle per code,
 * in the unit's ledger ({@code UnitView.reasons()}).
 *
 * <p>Cost: a count is a search among the few codes a unit has seen and three field writes; memory is
 * allocated for a unit's first reason of each code only. A reason the engine builds itself (text
 * with numbers) is built at most once per cycle and per second of engine time for each unit and
 * code: a reason found again within that keeps its text ({@link #again}).
 */
public final class WaitLedger {

    /** How long the text of an engine-built reason stands before it is built again when found again. */
    static final long FRESH_MILLIS = 1000;

    private final LongSupplier clock;
    private boolean on;
    private int cycle;
    /** Engine time at the start of the cycle: the time every reason of the cycle is found at (one clock read per cycle). */
    private long now;

    /**
     * @param on    keep the ledger; off, only the latest reason is kept (as before the ledger), which
     *              is what the cost figures compare against
     * @param clock engine time
     */
    public WaitLedger(boolean on, LongSupplier clock) {
        this.on = on;
        this.clock = clock;
    }

    public boolean on() {
        return on;
    }

    /** Switches the ledger on or off from the next reason on (a unit's ledger goes when nothing of it waits). */
    public void on(boolean keep) {
        on = keep;
    }

    /** A new scheduling cycle begins: each code counts once more at most. */
    public void nextCycle() {
        cycle++;
        now = clock.getAsLong();
    }

    /** {@code u} waits for {@code r}. */
    public void record(UnitState u, Reason r) {
        u.waitedFor(r, now, cycle, on);
    }

    /**
     * {@code u} waits for a reason of code {@code c} again: true if it was counted with the text it
     * has (recorded this cycle or within {@link #FRESH_MILLIS}); false if the caller must build the
     * reason and {@link #record} it — always with the ledger off.
     */
    public boolean again(UnitState u, ReasonCode c) {
        return on && u.waitedAgain(c, now, cycle, FRESH_MILLIS);
    }
}
