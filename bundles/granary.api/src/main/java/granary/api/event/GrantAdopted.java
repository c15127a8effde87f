package granary.api.event;

import granary.api.model.UnitId;

/**
 * The engine takes on a grant a unit already holds, without deciding it: {@code slots} slots of the
 * unit on the node. For an engine that starts from state held elsewhere — a shadow canary seeded
 * from the live engine (docs/canary.md, "Starting from the live state"), a master recovering its
 * grants (issue 12). No policy is asked; the unit's waiting slots go down by {@code slots}, as for a
 * grant.
 *
 * <p>Validated whole, nothing changes on a refusal: the unit must exist and be live, the node must
 * exist, {@code slots} must be at least 1 and at most the unit's remaining (waiting) slots, the node
 * must have room for them now, and with {@code maxPerNode} set the unit's slots on the node must stay
 * within it. A blacklisted node or a unit's own blacklist does not refuse an adoption: a blacklist
 * only keeps new grants away, and running grants stay. The receipt carries a {@link Granted} for it,
 * like any grant (a caller that must not tell agents again drops it).
 *
 * <p>With {@code raiseDesired} the unit's desired count first goes up by {@code slots} in the same
 * step (nothing is scheduled between), and the waiting-slots check does not apply: a master that
 * rebuilt takes on an online grant it was not asking for (docs/recovery.md, "Peers that return
 * late") without the engine granting those slots elsewhere first.
 */
public record GrantAdopted(UnitId unit, String node, int slots, boolean raiseDesired) implements InputEvent {

    /** Adopts slots the unit is waiting for. */
    public GrantAdopted(UnitId unit, String node, int slots) {
        this(unit, node, slots, false);
    }
}
