package granary.protocol.link;

import granary.api.model.Problem;
import java.util.List;

/**
 * A {@link Link} got no answer, or an answer that says the link itself must change: the token was
 * refused, the server cannot be reached (an attempt that failed, reported as trouble; or no answer
 * within a {@link SyncLink}'s wait), or the server restarted and the caller must re-sync (register
 * again, send a full request). {@link #kind()} says which.
 */
public class LinkException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why the link failed. */
    public enum Kind {
        /**
         * No answer: a refused connection, a timeout, a 5xx, or an answer of a fenced (deposed)
         * incarnation. The link posts again; a {@link SyncLink} throws it once its wait is over.
         */
        UNREACHABLE,
        /** 401 or 403: the token is not valid, or not for this sender. Retrying will not help. */
        UNAUTHORIZED,
        /** The server answered as a new incarnation: whatever it held for this peer is gone. */
        RESTARTED,
        /** The server answered something this protocol does not expect (a 404, a garbled body). */
        PROTOCOL,
        /**
         * 409 to a poll: the server holds no state of this peer any more (it declared the peer lost
         * after a timeout): send the full state again, as after a restart.
         */
        FORGOTTEN,
        /**
         * 409 naming {@code $.incarnation} as fenced: the master declared this incarnation lost and
         * started the peer again elsewhere (docs/recovery.md, "Restarting a lost job master"). Nothing
         * it sends is taken any more: the process must exit.
         */
        FENCED,
        /** The link was closed by its owner: nothing more is sent on it. */
        CLOSED
    }

    /** True if {@code problems} say the sender's incarnation is fenced (the master started it again). */
    public static boolean fencing(List<Problem> problems) {
        return problems.stream().anyMatch(p -> "$.incarnation".equals(p.field()) && p.message().contains(" is fenced: "));
    }

    private final Kind kind;
    private final transient List<Problem> problems;

    public LinkException(Kind kind, String message, List<Problem> problems, Throwable cause) {
        super(message, cause);
        this.kind = kind;
        this.problems = List.copyOf(problems);
    }

    public Kind kind() {
        return kind;
    }

    /** What the server said was wrong, when it said so. */
    public List<Problem> problems() {
        return problems;
    }
}
