package granary.policy.reservation;

/** How the nodes of a reservation are chosen (docs/policies.md, "reservation"; the Volcano article's two algorithms). */
public enum Mode {

    /**
     * "Spec first": nodes by capacity in the target's main resource, largest first. Locks the
     * fewest nodes, and the target's slots end up together; the group is stable while free space
     * churns, but the locked total is usually a little more than the target needs. The default
     * (Volcano's v1.1.0 choice).
     */
    SPEC_FIRST,

    /**
     * "Idle first": nodes by free amount of the target's main resource, largest first. Frees what
     * the target needs fastest, but the choice follows free space as it churns, so the group is less
     * stable.
     */
    IDLE_FIRST
}
