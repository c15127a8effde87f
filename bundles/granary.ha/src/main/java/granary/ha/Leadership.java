package granary.ha;

/**
 * What a {@link MasterElection} tells its master. Called on the election's own thread, one call at
 * a time: {@link #elected} at most once, then {@link #deposed} at most once.
 */
public interface Leadership {

    /**
     * This master leads from now on, with {@code epoch} (larger than every earlier leader's): start
     * serving the protocol with it as the incarnation. The leader's URL is published when this
     * returns, so peers are sent here only once the master serves.
     */
    void elected(long epoch);

    /**
     * This master must stop serving at once: its lease lapsed, its ZooKeeper session was suspended
     * or lost, or it lost the leadership. Its {@link Lease} is revoked before this is called.
     * Another master may already lead. The election is over; a master that wants to lead again
     * must start empty, with a new election. Also called without {@link #elected} when the latch
     * was won but the lease could not be taken.
     *
     * @param reason why, in words, for the log
     */
    void deposed(String reason);
}
