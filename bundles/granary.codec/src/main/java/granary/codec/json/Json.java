package granary.codec.json;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;
import granary.api.model.Text;
import granary.codec.CodecException;

/**
 * Typed reads of a {@link JsonValue} tree that record problems instead of throwing, so that a
 * document with several mistakes reports all of them at once. Every accessor takes the JSON path of
 * what it reads ({@code $.units[0].slot}); a problem is placed at the value it is about, or — for a
 * missing field — at the object that lacks it. Unknown fields are problems too (a misspelt field
 * silently ignored is a bug report waiting to happen).
 *
 * <p>Messages read {@code <source>:<line>:<column>: <json path>: <what is wrong>} (see
 * {@link JsonProblem}), in these words: {@code is missing}, {@code expected a whole number, got the
 * string "5"}, {@code unknown field; known fields: a, b, c}. Values from the input are escaped and
 * cut ({@link Text}). At most {@value #MAX_PROBLEMS} problems are kept; a last one says how many
 * more there were.
 */
public final class Json {

    public static final int MAX_PROBLEMS = 100;

    private final String source;
    private final List<JsonProblem> problems = new ArrayList<>();
    private int dropped;

    /** @param source names the input in every problem, e.g. the file's path */
    public Json(String source) {
        this.source = source;
    }

    public String source() {
        return source;
    }

    public void problem(JsonPosition at, String path, String message) {
        add(new JsonProblem(source, at == null ? JsonPosition.NONE : at, path, message));
    }

    /** A problem about {@code at} (null: no known place). */
    public void problem(JsonValue at, String path, String message) {
        problem(at == null ? null : at.position(), path, message);
    }

    /** Turns the problems of a model's own validation into problems at {@code path}. */
    public void problem(JsonValue at, String path, InvalidRequestException e) {
        JsonPosition p = at == null ? JsonPosition.NONE : at.position();
        for (Problem x : e.problems()) {
            add(new JsonProblem(source, p, path + "." + x.field(), x.message(), x.limit(), x.value()));
        }
    }

    /** Takes over the problems of a model's validation of the whole document, prefixed with the source. */
    public void problemsOf(InvalidRequestException e) {
        for (Problem x : e.problems()) {
            add(new JsonProblem(source + ": " + x.subject(), JsonPosition.NONE, x.field(), x.message(), x.limit(), x.value()));
        }
    }

    private void add(JsonProblem p) {
        if (problems.size() < MAX_PROBLEMS) {
            problems.add(p);
        } else {
            dropped++;
        }
    }

    public List<JsonProblem> problems() {
        return List.copyOf(problems);
    }

    public boolean ok() {
        return problems.isEmpty();
    }

    /** Problems found, counting those not kept. */
    public int count() {
        return problems.size() + dropped;
    }

    /** @throws CodecException with every problem kept (and a last one counting the others) */
    public void throwIfProblems() {
        if (problems.isEmpty()) {
            return;
        }
        List<Problem> out = new ArrayList<>();
        problems.forEach(p -> out.add(p.toProblem()));
        if (dropped > 0) {
            out.add(Problem.of(source, JsonPath.ROOT, dropped + " more problems not shown (the first " + MAX_PROBLEMS + " are)"));
        }
        throw new CodecException(out);
    }

    /** What a value is, for messages; {@code nothing} for a missing value. */
    public static String kind(JsonValue e) {
        return e == null ? "nothing" : e.describe();
    }

    /** The value as an object, or null with a problem. */
    public JsonObject object(JsonValue e, String path) {
        if (e instanceof JsonObject o) {
            return o;
        }
        problem(e, path, "expected an object, got " + kind(e));
        return null;
    }

    /** The value as an array, or null with a problem. */
    public JsonArray array(JsonValue e, String path) {
        if (e instanceof JsonArray a) {
            return a;
        }
        problem(e, path, "expected an array, got " + kind(e));
        return null;
    }

    /** The field {@code field} of {@code o}, null if absent or {@code null}; {@code required} makes absence a problem. */
    public JsonValue field(JsonObject o, String field, String path, boolean required) {
        JsonValue e = o.get(field);
        if (e == null || e instanceof JsonNull) {
            if (required) {
                problem(o, JsonPath.member(path, field), "is missing");
            }
            return null;
        }
        return e;
    }

    /** Records every field of {@code o} that is not in {@code known}, listing the known ones. */
    public void onlyKnown(JsonObject o, String path, Set<String> known) {
        for (JsonObject.Member m : o.members()) {
            if (!known.contains(m.key())) {
                problem(m.value(), JsonPath.member(path, m.key()),
                        "unknown field; known fields: " + String.join(", ", new TreeSet<>(known)));
            }
        }
    }

    /** A string field; {@code dflt} null means required. */
    public String string(JsonObject o, String field, String path, String dflt) {
        JsonValue e = field(o, field, path, dflt == null);
        if (e == null) {
            return dflt;
        }
        if (e instanceof JsonString s) {
            return s.value();
        }
        problem(e, JsonPath.member(path, field), "expected a string, got " + kind(e));
        return dflt;
    }

    /** A whole-number field; {@code dflt} null means required (0 when missing). */
    public long integer(JsonObject o, String field, String path, Long dflt) {
        JsonValue e = field(o, field, path, dflt == null);
        if (e == null) {
            return dflt == null ? 0 : dflt;
        }
        return integer(e, JsonPath.member(path, field));
    }

    /** A whole number written without fraction or exponent ({@code 12}, {@code -3}); 0 with a problem otherwise. */
    public long integer(JsonValue e, String path) {
        if (e instanceof JsonNumber n) {
            try {
                return Long.parseLong(n.text());
            } catch (NumberFormatException ex) {
                boolean digits = n.text().matches("-?[0-9]+");
                problem(e, path, digits ? "is out of range (" + Long.MIN_VALUE + " to " + Long.MAX_VALUE + "), got "
                        + Text.escape(n.text()) : "expected a whole number, got " + Text.escape(n.text()));
                return 0;
            }
        }
        problem(e, path, "expected a whole number, got " + kind(e));
        return 0;
    }

    public int int32(JsonObject o, String field, String path, Integer dflt) {
        long v = integer(o, field, path, dflt == null ? null : (long) dflt);
        if (v > Integer.MAX_VALUE || v < Integer.MIN_VALUE) {
            problem(o.get(field), JsonPath.member(path, field), "out of range: " + v);
            return 0;
        }
        return (int) v;
    }

    public boolean bool(JsonObject o, String field, String path, boolean dflt) {
        JsonValue e = field(o, field, path, false);
        if (e == null) {
            return dflt;
        }
        if (e instanceof JsonBoolean b) {
            return b.value();
        }
        problem(e, JsonPath.member(path, field), "expected true or false, got " + kind(e));
        return dflt;
    }

    /** A number field of any form, or null (a problem if it is not a number). */
    public JsonNumber number(JsonObject o, String field, String path) {
        JsonValue e = field(o, field, path, false);
        if (e == null || e instanceof JsonNumber) {
            return (JsonNumber) e;
        }
        problem(e, JsonPath.member(path, field), "expected a number, got " + kind(e));
        return null;
    }

    /** An optional array of strings; empty when absent. */
    public List<String> strings(JsonObject o, String field, String path) {
        List<String> out = new ArrayList<>();
        JsonValue e = field(o, field, path, false);
        if (e == null) {
            return out;
        }
        String p = JsonPath.member(path, field);
        JsonArray a = array(e, p);
        for (int i = 0; a != null && i < a.size(); i++) {
            if (a.get(i) instanceof JsonString s) {
                out.add(s.value());
            } else {
                problem(a.get(i), JsonPath.item(p, i), "expected a string, got " + kind(a.get(i)));
            }
        }
        return out;
    }

    /** An optional object of string values (labels); empty when absent. */
    public Map<String, String> labels(JsonObject o, String field, String path) {
        Map<String, String> out = new TreeMap<>();
        JsonValue e = field(o, field, path, false);
        if (e == null) {
            return out;
        }
        String p = JsonPath.member(path, field);
        JsonObject l = object(e, p);
        for (JsonObject.Member m : l == null ? List.<JsonObject.Member>of() : l.members()) {
            if (m.value() instanceof JsonString s) {
                out.put(m.key(), s.value());
            } else {
                problem(m.value(), JsonPath.member(p, m.key()), "expected a string, got " + kind(m.value()));
            }
        }
        return out;
    }
}
