package granary.planner.live.model;

import java.util.List;

/**
 * The nodes of a frame and their rooms, immutable: shared by every frame until a node comes or goes,
 * so that a view lays the heatmap out again only when this object changes.
 *
 * @param names   node names by index (the index of the frame's arrays); null for a slot left by a removed node
 * @param rooms   the rooms, by name, each with its nodes' indices by node name
 * @param version grows with every change of nodes or rooms
 */
public record Topology(String[] names, List<Room> rooms, long version) {

    /** A room and its nodes' indices, sorted by node name. */
    public record Room(String name, int[] nodes) {
    }

    public Topology {
        rooms = List.copyOf(rooms);
    }

    /** The index of node {@code name}, or -1. */
    public int indexOf(String name) {
        for (int i = 0; i < names.length; i++) {
            if (name.equals(names[i])) {
                return i;
            }
        }
        return -1;
    }

    /** The nodes in rooms (removed ones not counted). */
    public int nodeCount() {
        int n = 0;
        for (Room r : rooms) {
            n += r.nodes().length;
        }
        return n;
    }
}
