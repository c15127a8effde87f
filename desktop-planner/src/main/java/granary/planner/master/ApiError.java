package granary.planner.master;

import java.util.List;

/**
 * A master's refusal, read from its problem JSON (docs/api.md, "Errors"), or a failure to reach it
 * ({@code status} 0). {@link #getMessage()} is one line for a status bar; {@link #errors()} lists
 * every problem the master named, for a list a person can read.
 */
public final class ApiError extends Exception {

    /** One problem of a refusal: where (subject, field) and what is wrong. */
    public record Item(String subject, String field, String message) {
        @Override
        public String toString() {
            return subject + (field == null || field.isEmpty() ? "" : ": " + field) + ": " + message;
        }
    }

    private final int status;
    private final String type;
    private final List<Item> errors;

    private final String cause;

    public ApiError(int status, String type, String detail, List<Item> errors) {
        this(status, type, detail, errors, null);
    }

    /** @param cause what the system said, for a details line (null: nothing more to say) */
    public ApiError(int status, String type, String detail, List<Item> errors, String cause) {
        super(detail);
        this.status = status;
        this.type = type;
        this.errors = List.copyOf(errors);
        this.cause = cause;
    }

    /** The technical cause for a details line ({@code ConnectException: Connection refused}), or null. */
    public String details() {
        return cause;
    }

    /** The HTTP status, or 0 if the master could not be reached. */
    public int status() {
        return status;
    }

    /** The problem type's last part ({@code invalid-request}, {@code stale-revision}, ...), or {@code unreachable}. */
    public String type() {
        return type;
    }

    public List<Item> errors() {
        return errors;
    }

    /** The detail and every problem, one per line. */
    public String describe() {
        StringBuilder sb = new StringBuilder(status == 0 ? "" : status + " " + type + ": ").append(getMessage());
        errors.forEach(e -> sb.append('\n').append("  ").append(e));
        if (cause != null) {
            sb.append('\n').append("details: ").append(cause);
        }
        return sb.toString();
    }
}
