package granary.protocol;

/** Who takes part in the protocol. Written on the wire as {@link #wire()}: {@code agent}, {@code job-master}, {@code master}. */
public enum Role {
    /** Runs on one node: reports its capacity and workers, launches what a job master plans. */
    AGENT("agent"),
    /** Runs one or more jobs: asks the master for slots and tells agents what to launch in them. */
    JOB_MASTER("job-master"),
    /** The scheduler: decides which job master may use which slots on which node. */
    MASTER("master");

    private final String wire;

    Role(String wire) {
        this.wire = wire;
    }

    public String wire() {
        return wire;
    }

    /** The role written {@code text} on the wire, or null. */
    public static Role ofWire(String text) {
        for (Role r : values()) {
            if (r.wire.equals(text)) {
                return r;
            }
        }
        return null;
    }
}
