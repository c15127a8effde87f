package granary.http;

import java.util.ArrayList;
import java.util.List;

/**
 * One operation of the API, declared once: method, path template, the role it needs, and what the
 * OpenAPI description says of it. The servlet dispatches on these and {@link OpenApi} describes
 * exactly these, so the description cannot drift from what is served (docs/api.md, "OpenAPI").
 *
 * @param method   GET, POST, PUT or DELETE
 * @param template the path under {@code /api/v1}, with {@code {name}} segments
 * @param role     the least role that may call it
 * @param id       the OpenAPI operationId
 * @param summary  one sentence
 * @param query    the query parameters it reads
 * @param body     the request body it takes: null for none, else a short description of the format
 * @param statuses the statuses it may answer besides 401/403 (2xx first)
 * @param handler  the work
 */
public record Route(String method, String template, ApiRole role, String id, String summary,
                    List<Param> query, String body, List<Integer> statuses, Handler handler) {

    /** A query parameter: name, type ({@code string}, {@code integer}, {@code boolean}) and meaning. */
    public record Param(String name, String type, String description) {
    }

    /** The work of a route. */
    @FunctionalInterface
    public interface Handler {
        Answer handle(Call call) throws Exception;
    }

    public Route {
        query = List.copyOf(query);
        statuses = List.copyOf(statuses);
    }

    /** The template's segments. */
    List<String> segments() {
        List<String> out = new ArrayList<>();
        for (String s : template.substring(1).split("/")) {
            out.add(s);
        }
        return out;
    }

    /** Starts a declaration. */
    public static Builder get(String template, ApiRole role) {
        return new Builder("GET", template, role);
    }

    public static Builder post(String template, ApiRole role) {
        return new Builder("POST", template, role);
    }

    public static Builder put(String template, ApiRole role) {
        return new Builder("PUT", template, role);
    }

    public static Builder delete(String template, ApiRole role) {
        return new Builder("DELETE", template, role);
    }

    /** A route, step by step: {@code Route.get("/jobs", READER).id("listJobs").summary("...").handle(h)}. */
    public static final class Builder {
        private final String method;
        private final String template;
        private final ApiRole role;
        private String id;
        private String summary = "";
        private final List<Param> query = new ArrayList<>();
        private String body;
        private final List<Integer> statuses = new ArrayList<>();

        private Builder(String method, String template, ApiRole role) {
            this.method = method;
            this.template = template;
            this.role = role;
        }

        public Builder id(String operationId) {
            this.id = operationId;
            return this;
        }

        public Builder summary(String text) {
            this.summary = text;
            return this;
        }

        public Builder param(String name, String type, String description) {
            query.add(new Param(name, type, description));
            return this;
        }

        /** The request body: a JSON document of the described format. */
        public Builder body(String format) {
            this.body = format;
            return this;
        }

        /** The statuses it answers besides 401 and 403, its success first. */
        public Builder answers(Integer... codes) {
            statuses.addAll(List.of(codes));
            return this;
        }

        public Route handle(Handler handler) {
            if (statuses.isEmpty()) {
                statuses.add(method.equals("POST") ? 201 : 200);
            }
            return new Route(method, template, role, id, summary, query, body, statuses, handler);
        }
    }
}
