package granary.http;

import granary.api.model.Problem;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A request the API refuses, answered as problem JSON (RFC 9457; docs/api.md, "Errors"): an HTTP
 * status, a problem type (a slug under {@code /api/v1/problems/}), a title that is the same for
 * every problem of the type, a detail that says what is wrong with this request, and the problems
 * found, each naming its subject and field (a JSON path into the body where there is one).
 * Nothing has changed when one is thrown.
 */
public final class ApiException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String type;
    private final String title;
    private final transient List<Problem> problems;
    private final transient Map<String, String> headers = new LinkedHashMap<>();

    public ApiException(int status, String type, String title, String detail, List<Problem> problems) {
        super(detail);
        this.status = status;
        this.type = type;
        this.title = title;
        this.problems = List.copyOf(problems);
    }

    public static ApiException badRequest(String detail, List<Problem> problems) {
        return new ApiException(400, "invalid-request", "The request is invalid", detail, problems);
    }

    public static ApiException badParameter(String name, String detail) {
        return new ApiException(400, "invalid-parameter", "A query or path parameter is invalid", detail,
                List.of(Problem.of("parameter " + name, name, detail)));
    }

    public static ApiException notFound(String what, String detail) {
        return new ApiException(404, "not-found", "No such resource", detail, List.of(Problem.of(what, null, detail)));
    }

    public static ApiException conflict(String type, String detail) {
        return new ApiException(409, type, "The request conflicts with the current state", detail, List.of());
    }

    public int status() {
        return status;
    }

    public String type() {
        return type;
    }

    public String title() {
        return title;
    }

    public String detail() {
        return getMessage();
    }

    public List<Problem> problems() {
        return problems;
    }

    /** Adds a header to the answer (a redirect's {@code Location}). */
    public ApiException header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    public Map<String, String> headers() {
        return headers;
    }
}
