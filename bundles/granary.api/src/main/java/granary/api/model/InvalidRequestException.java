package granary.api.model;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Bad input: the request was refused and no accepted state was changed. Carries every problem
 * found, each naming its subject and field, and the {@link #reason() reason}: one short stable word
 * for why, what a monitor counts refusals by (the metrics' {@code reason} label, docs/operations.md,
 * "Metrics"). The words are the ones below, or a why-not reason code in lower case
 * ({@code too_large}, {@code unknown_group}, a policy's {@code quota}) when a policy refused the
 * request with that code.
 */
public class InvalidRequestException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** The input breaks a rule of the model, or the state the engine holds; the default. */
    public static final String INVALID = "invalid";
    /** The input names a new thing (a job, a node, a unit) with a name already in use. */
    public static final String DUPLICATE = "duplicate";
    /** The input names a job, unit or node that the engine does not hold. */
    public static final String NOT_FOUND = "not_found";

    private final String reason;
    private final List<Problem> problems;

    /**
     * @param reason   a short stable word: lower-case letters, digits and '_', starting with a letter
     * @param problems every problem found
     */
    public InvalidRequestException(String reason, List<Problem> problems) {
        super(problems.stream().map(Problem::toString).collect(Collectors.joining("; ")));
        if (reason == null || !reason.matches("[a-z][a-z0-9_]*")) {
            throw new IllegalArgumentException("a refusal's reason is lower-case letters, digits and '_', got '" + reason + "'");
        }
        this.reason = reason;
        this.problems = List.copyOf(problems);
    }

    public InvalidRequestException(String reason, Problem problem) {
        this(reason, List.of(problem));
    }

    /** A refusal for reason {@link #INVALID}. */
    public InvalidRequestException(List<Problem> problems) {
        this(INVALID, problems);
    }

    /** A refusal for reason {@link #INVALID}. */
    public InvalidRequestException(Problem problem) {
        this(List.of(problem));
    }

    /** A refusal for reason {@link #INVALID}. */
    public InvalidRequestException(String subject, String field, String message) {
        this(Problem.of(subject, field, message));
    }

    public List<Problem> problems() {
        return problems;
    }

    /** Why, in one short stable word: {@link #INVALID}, {@link #DUPLICATE}, {@link #NOT_FOUND} or a reason code in lower case. */
    public String reason() {
        return reason;
    }
}
