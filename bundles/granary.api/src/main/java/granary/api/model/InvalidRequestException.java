package granary.api.model;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Bad input: the request was refused and no accepted state was changed. Carries every problem
 * found, each naming its subject and field.
 */
public class InvalidRequestException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final List<Problem> problems;

    public InvalidRequestException(List<Problem> problems) {
        super(problems.stream().map(Problem::toString).collect(Collectors.joining("; ")));
        this.problems = List.copyOf(problems);
    }

    public InvalidRequestException(Problem problem) {
        this(List.of(problem));
    }

    public InvalidRequestException(String subject, String field, String message) {
        this(Problem.of(subject, field, message));
    }

    public List<Problem> problems() {
        return problems;
    }
}
