package granary.protocol.link;

import java.util.Objects;

/**
 * An HTTP answer of an {@link Endpoint}: the status and a body of UTF-8 JSON (an envelope), or no
 * body for 204. Transport adapters copy it to the wire as it is.
 *
 * <p>Statuses: 200 applied (or, for the inbox, an envelope); 204 the inbox had nothing within the
 * wait; 400 the envelope was read and refused, or could not be read; 401 no valid token; 403 a
 * valid token of another peer; 409 the session refused it (a dead incarnation, a gap); 413 larger
 * than the limit; 503 the server is not ready. Every body but 204's is an envelope: an ack whose
 * problems say what was wrong.
 */
public record Reply(int status, byte[] body) {

    public static final String CONTENT_TYPE = "application/json; charset=utf-8";

    public Reply {
        Objects.requireNonNull(body, "body");
    }

    public static Reply empty() {
        return new Reply(204, new byte[0]);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Reply r && r.status == status && java.util.Arrays.equals(r.body, body);
    }

    @Override
    public int hashCode() {
        return 31 * status + java.util.Arrays.hashCode(body);
    }

    @Override
    public String toString() {
        return "Reply[" + status + ", " + body.length + " bytes]";
    }
}
