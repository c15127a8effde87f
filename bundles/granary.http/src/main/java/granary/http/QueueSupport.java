package granary.http;

import granary.codec.CodecException;
import granary.policy.queues.api.QueueTree;
import granary.policy.queues.api.QueueTreeCodec;
import java.io.StringReader;

/**
 * The queue tree as the API loads it, through the queues policy's codec (docs/formats.md) — the
 * only class of this bundle that names the queue model.
 */
final class QueueSupport {

    /** The policy whose settings are queue trees. */
    static final String POLICY = "queues";

    private QueueSupport() {
    }

    /** Reads and validates a tree from a request body, or a 400 listing every problem. */
    static QueueTree read(String body) {
        try {
            return QueueTreeCodec.read(new StringReader(body), "request body");
        } catch (CodecException e) {
            throw ApiException.badRequest("the queue tree has " + e.problems().size() + " problem(s); nothing changed",
                    e.problems());
        }
    }

    /** The leaves of a tree, its queues that take jobs. */
    static java.util.List<String> leaves(Object tree) {
        return tree instanceof QueueTree t ? t.leaves() : java.util.List.of();
    }
}
