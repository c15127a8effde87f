package granary.api.spi;

import java.util.Collection;
import java.util.Set;

import granary.api.model.Resources;

import org.osgi.annotation.versioning.ProviderType;

/** The cluster now. Live: read it on the engine thread only. */
@ProviderType
public interface ClusterView {

    /** The node with this name, or null. */
    NodeView node(String name);

    /** All nodes, in the order they joined. */
    Collection<? extends NodeView> nodes();

    /** Room names, sorted. */
    Set<String> rooms();

    int size();

    /** Sum of all capacities. */
    Resources capacity();

    /** Sum of all grants. */
    Resources granted();

    /** capacity − granted. */
    Resources free();

    /** Largest capacity of any single node, per resource (an upper bound on what one slot can be). */
    Resources largestNode();
}
