package granary.master;

/**
 * What the master keeps for any peer it pushes to: its inbox, when it was last heard from, whether
 * its timeout declared it lost, and since when news has waited for it (for the delivery latency).
 * Touched only in turns of the master's loop.
 */
abstract class Peer {

    final Outbox outbox = new Outbox();
    long lastSeen;
    boolean lost;
    long dirtySince = -1;

    /** Whether something changed since the last envelope it was sent. */
    abstract boolean hasNews();

    /** Whether it may poll its inbox yet (an agent once registered). */
    abstract boolean ready();
}
