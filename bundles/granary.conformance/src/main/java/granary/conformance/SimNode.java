package granary.conformance;

import granary.api.model.Resources;

/** A machine of the world: its capacity, its disk (the agent's checkpoint), its operating system, its agent now. */
final class SimNode {

    final String name;
    final Resources capacity;
    final SimDisk disk;
    final SimOs os;
    AgentProcess agent;
    int lives;
    /** A disk fault hit its checkpoint or run records: what ran there may be run again. */
    boolean damaged;

    SimNode(World world, String name, Resources capacity) {
        this.name = name;
        this.capacity = capacity;
        this.disk = new SimDisk(name, world);
        this.os = new SimOs(world, name);
    }
}
