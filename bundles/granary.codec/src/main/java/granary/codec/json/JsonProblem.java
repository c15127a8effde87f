package granary.codec.json;

import granary.api.model.Problem;

/**
 * One thing wrong in a JSON document, kept as fields. Its text is
 * {@code <source>:<line>:<column>: <json path>: <what is wrong>}, e.g.
 * {@code jobs.json:14:30: $.units[0].slot.cpu: must not be negative, got -100}; without a known
 * place (a rule over the whole document) it is {@code <source>: <json path>: <what is wrong>}.
 *
 * @param limit the limit that was broken, or null
 * @param value the value that broke it, or null
 */
public record JsonProblem(String source, JsonPosition at, String path, String message, Long limit, Long value) {

    public JsonProblem(String source, JsonPosition at, String path, String message) {
        this(source, at, path, message, null, null);
    }

    /** The source with the place: {@code jobs.json:14:30}, or just the source. */
    public String where() {
        return at.known() ? source + ":" + at : source;
    }

    /** As a model problem: the subject is {@link #where()}, the field the JSON path. */
    public Problem toProblem() {
        return new Problem(where(), path, message, limit, value);
    }

    @Override
    public String toString() {
        return where() + ": " + path + ": " + message;
    }
}
