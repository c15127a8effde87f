package granary.policy.gang;

/** How the gang planner picks nodes inside one locality step. */
public enum Packing {

    /**
     * Nodes with room for the fewest slots of the unit first (then the least free in the slot's
     * main resource, then the name): slots fill the nodes that are already nearly full, and the
     * emptiest nodes stay whole for the next big gang. The default.
     */
    BEST_FIT,

    /**
     * Nodes in the engine's candidate order (the order they joined): the cheapest plan, no sort,
     * but a gang lands on the first big free node it meets and splits it.
     */
    FIRST_FIT
}
