package granary.protocol.link;

/** Where the protocol lives under a peer's base URL (docs/protocol.md, "Transport"). */
public final class Paths {

    /** {@code POST}: one envelope in the body, the ack envelope in the reply. */
    public static final String MESSAGES = "/protocol/v1/messages";

    /**
     * {@code GET ?after=N&wait=MILLIS}: the next envelope the server has for the caller after its
     * sequence number {@code N} (which acknowledges everything up to {@code N}), waiting up to
     * {@code wait} milliseconds for one; 204 when none came.
     */
    public static final String INBOX = "/protocol/v1/inbox";

    /** The longest wait a server grants to one inbox request, in milliseconds. */
    public static final long MAX_WAIT_MILLIS = 30_000;

    private Paths() {
    }
}
