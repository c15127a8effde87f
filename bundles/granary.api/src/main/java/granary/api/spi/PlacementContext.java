package granary.api.spi;

import java.util.Collection;

import org.osgi.annotation.versioning.ProviderType;

/** What a {@link GangPlacement} may ask while planning. Read-only. */
@ProviderType
public interface PlacementContext extends EngineView {

    /**
     * Nodes where the unit may have at least one more slot now: eligible by locality, blacklists,
     * labels, per-node limit and every node filter, with room for one slot.
     */
    Collection<? extends NodeView> candidates(UnitView unit);

    /**
     * True if the unit may use the node at all — locality, blacklists, labels, per-node limit and
     * node filters — whatever its free resources (what freeing resources there could give it).
     */
    boolean mayUse(UnitView unit, NodeView node);

    /** How many more slots of the unit a node can take now (0 if it may not use it). */
    int room(UnitView unit, NodeView node);

    /** How many more slots admission allows the unit now. */
    int admissible(UnitView unit);
}
