package granary.engine.policy;

import granary.api.spi.EngineView;
import granary.api.spi.GroupOrder;
import granary.api.spi.GroupView;

/**
 * The engine's built-in group order (docs/scheduling.md, "Passive scheduling"): the hungriest group
 * first, hunger being the used share of the group — its dominant share of the cluster's capacity when
 * no quota policy says otherwise. Ties go by name.
 */
final class HungerOrder implements GroupOrder {

    static final String NAME = "hunger";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int compare(GroupView a, GroupView b, EngineView view) {
        return Double.compare(a.used().dominantShare(view.cluster().capacity()),
                b.used().dominantShare(view.cluster().capacity()));
    }
}
