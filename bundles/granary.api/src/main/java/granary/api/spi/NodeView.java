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
}
