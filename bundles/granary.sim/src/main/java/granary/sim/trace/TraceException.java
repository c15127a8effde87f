package granary.sim.trace;

import java.util.List;
import java.util.stream.Collectors;

/**
 * An input that cannot be replayed. Every problem names the file, the line and the column (1-based)
 * and what is wrong, e.g. {@code batch_task.csv:17:22: column 7 (cpu): expected a whole number, got 'x'}.
 */
public class TraceException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    /** One bad place in an input. Line or column 0 means the whole file or the whole line. */
    public record Problem(String file, long line, int column, String message) {
        @Override
        public String toString() {
            return file + (line > 0 ? ":" + line + (column > 0 ? ":" + column : "") : "") + ": " + message;
        }
    }

    private final transient List<Problem> problems;

    public TraceException(List<Problem> problems) {
        super(problems.stream().map(Problem::toString).collect(Collectors.joining(System.lineSeparator())));
        this.problems = List.copyOf(problems);
    }

    public TraceException(String file, long line, int column, String message) {
        this(List.of(new Problem(file, line, column, message)));
    }

    public List<Problem> problems() {
        return problems;
    }
}
