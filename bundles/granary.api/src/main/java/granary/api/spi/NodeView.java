package granary.api.spi;

import java.util.Map;

import granary.api.model.Resources;
import granary.api.model.UnitId;

import org.osgi.annotation.versioning.ProviderType;

/** A node as the engine sees it now. Live: read it on the engine thread only. */
@ProviderType
public interface NodeView {

    String name();

    String room();

    Map<String, String> labels();

    Resources capacity();

    Resources granted();

    /** capacity − granted. */
    Resources free();

    /** On the global blacklist: takes no new grants. */
    boolean blacklisted();

    /** Slots of a unit on this node. */
    int slotsOf(UnitId unit);

    /** Slots per unit on this node (the node's Cap set). */
    Map<UnitId, Integer> allocations();

    /**
     * The units with slots on this node, as {@code engine} knows them, in the order of
     * {@link #allocations()}. The engine's own nodes answer without a lookup per unit (the preemptor's
     * look node by node asks it of up to 128 nodes per attempt); by default each unit is looked up.
     *
     * @since 3.2.0
     */
    default java.util.List<UnitView> holders(EngineView engine) {
        java.util.List<UnitView> out = new java.util.ArrayList<>();
        for (UnitId id : allocations().keySet()) {
            UnitView u = engine.unit(id);
            if (u != null) {
                out.add(u);
            }
        }
        return out;
    }
}
