package granary.protocol;

import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;
import java.util.List;

/**
 * An envelope was refused: it is not valid JSON, not of this protocol's form, of a version this
 * side does not speak, or too large. Each problem names the source (the peer), the JSON path and
 * what is wrong; nothing of the envelope was applied.
 */
public class ProtocolException extends InvalidRequestException {

    private static final long serialVersionUID = 1L;

    public ProtocolException(List<Problem> problems) {
        super(problems);
    }

    public ProtocolException(String source, String path, String message) {
        super(Problem.of(source, path, message));
    }
}
