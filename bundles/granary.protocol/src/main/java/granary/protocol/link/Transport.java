package granary.protocol.link;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import java.util.function.BiConsumer;

/**
 * How a peer's calls reach a server: HTTP in a process ({@link HttpTransport}), the simulated wire
 * of the conformance kit, which drops, delays, duplicates and cuts (docs/recovery.md). A
 * {@link Link} is written against this alone.
 */
public interface Transport {

    /**
     * One call: {@code POST} of an envelope to {@link Paths#MESSAGES} or {@code GET} of
     * {@link Paths#INBOX}.
     *
     * @param timeout how long an answer may take before the call counts as failed
     */
    record Call(String method, URI uri, String authorization, byte[] body, Duration timeout) {
        public Call {
            Objects.requireNonNull(method, "method");
            Objects.requireNonNull(uri, "uri");
            Objects.requireNonNull(timeout, "timeout");
            body = body == null ? new byte[0] : body;
        }
    }

    /**
     * An answer: the status, the body, and the {@link Standby#LEADER_HEADER} a standby names, or
     * null.
     */
    record Response(int status, byte[] body, String leader) {
        public Response {
            body = body == null ? new byte[0] : body;
        }
    }

    /**
     * Makes {@code call}; {@code done} runs on {@code loop} with the response, or with the failure
     * (no connection, no answer within the timeout) — exactly one of the two is not null.
     */
    void exchange(Call call, Loop loop, BiConsumer<Response, IOException> done);
}
