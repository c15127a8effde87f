package granary.codec.json;

import java.util.List;

import granary.codec.CodecException;

/**
 * A document is not JSON as {@link JsonReader} accepts it (or not UTF-8, or beyond a
 * {@link JsonLimits limit}); the one problem names the source, line, column and JSON path.
 */
public class JsonSyntaxException extends CodecException {

    private static final long serialVersionUID = 1L;

    private final transient JsonProblem problem;

    public JsonSyntaxException(JsonProblem problem) {
        super(List.of(problem.toProblem()));
        this.problem = problem;
    }

    public JsonProblem problem() {
        return problem;
    }
}
