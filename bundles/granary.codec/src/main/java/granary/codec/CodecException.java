package granary.codec;

import java.util.List;
import java.util.stream.Collectors;

import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;

/**
 * A document could not be read. Every problem names the source (file), the JSON path (or line and
 * column for a syntax error) and what is wrong.
 */
public class CodecException extends InvalidRequestException {

    private static final long serialVersionUID = 1L;

    public CodecException(List<Problem> problems) {
        super(problems);
    }

    public CodecException(String source, String path, String message) {
        super(Problem.of(source, path, message));
    }

    /** Every problem on its own line. */
    public String describe() {
        return problems().stream().map(Problem::toString).collect(Collectors.joining(System.lineSeparator()));
    }
}
