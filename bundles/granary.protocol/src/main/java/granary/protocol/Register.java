package granary.protocol;

import granary.api.model.Resources;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * Agent → master, the first message of every agent incarnation: the node this agent runs, where it
 * is, and what it offers. The master treats it as the whole truth about the node; workers the agent
 * still runs after a restart are reported by the heartbeats that follow.
 *
 * @param node     the node's name, unique in the cluster
 * @param room     where the node stands (rack, room, zone) for locality
 * @param labels   the node's labels for node selectors
 * @param capacity what the node offers to Granary in total
 * @param endpoint the base URL where the agent takes {@link Plan}s from job masters, e.g.
 *                 {@code http://10.0.0.7:7071}; the master passes it on in {@link Hint}s
 * @param caps     every cap the agent holds (from memory, or from its checkpoint after a restart):
 *                 what a master that restarted rebuilds its grants from (docs/recovery.md)
 * @param epoch    this registration's epoch, larger than any before it on this node (each
 *                 registration takes a new one): the master names it in every placement on the
 *                 node, and the agent starts no launch planned against an earlier one — the node may
 *                 have been declared lost in between, its work run elsewhere (docs/recovery.md,
 *                 "A silent node"). Protocol version 4; 0 when not said
 */
public record Register(String node, String room, Map<String, String> labels, Resources capacity, String endpoint,
                       List<Cap.Grant> caps, long epoch) implements Message {

    /** The problem text with which a master refuses a heartbeat of an agent it declared lost. */
    public static final String DECLARED_LOST = " was declared lost after ";

    /** A registration holding no caps. */
    public Register(String node, String room, Map<String, String> labels, Resources capacity, String endpoint) {
        this(node, room, labels, capacity, endpoint, List.of(), 0);
    }

    /** A registration that names no epoch. */
    public Register(String node, String room, Map<String, String> labels, Resources capacity, String endpoint,
                    List<Cap.Grant> caps) {
        this(node, room, labels, capacity, endpoint, caps, 0);
    }


    public Register {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(room, "room");
        Objects.requireNonNull(capacity, "capacity");
        labels = Collections.unmodifiableMap(new TreeMap<>(labels));
        caps = List.copyOf(caps);
    }

    @Override
    public String type() {
        return "register";
    }
}
