package granary.protocol.link;

import java.util.concurrent.CompletableFuture;

/**
 * The server side of the protocol, independent of the HTTP server that carries it: a servlet on
 * the master's Jetty, {@link JdkHttpServer} in an agent or a test. Calls come from many threads.
 */
public interface Endpoint {

    /**
     * One envelope posted to {@link Paths#MESSAGES}.
     *
     * @param authorization the {@code Authorization} header, or null
     * @param body          the request body, at most {@link granary.protocol.WireCodec#MAX_MESSAGE_BYTES}
     *                      + 1 bytes (the adapter stops reading there, so that too large is seen)
     * @param remote        the caller's address, for messages
     */
    Reply post(String authorization, byte[] body, String remote);

    /**
     * The same, answered when the endpoint has applied it: a server that applies messages on a
     * loop of its own (the master) need not hold the caller's thread meanwhile.
     */
    default CompletableFuture<Reply> postAsync(String authorization, byte[] body, String remote) {
        return CompletableFuture.completedFuture(post(authorization, body, remote));
    }

    /**
     * Whether a post with these headers may send its body: null if so, else the refusal to answer
     * at once, before a byte of the body is read (docs/security.md: a caller without a valid token
     * must not hold the server while it sends slowly). {@link #post} checks again.
     *
     * @param authorization the {@code Authorization} header, or null
     * @param remote        the caller's address, for messages
     */
    default Reply admit(String authorization, String remote) {
        return null;
    }

    /**
     * One request for {@link Paths#INBOX}; completes when an envelope is due or the wait is over.
     * An endpoint without an inbox (an agent) completes with 404.
     */
    CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote);

    /**
     * The same, from incarnation {@code incarnation} of the caller ({@code incarnation=} in the
     * query; 0 when the caller did not say): a poll of an incarnation that ended must not
     * acknowledge what the server sent to the living one (docs/protocol.md, "Transport").
     */
    default CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, long incarnation, String remote) {
        return poll(authorization, after, waitMillis, remote);
    }
}
