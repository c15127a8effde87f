package granary.sim.trace;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;

import granary.api.model.Resources;

/** Typed reads of a {@link JsonTree} that record problems at the value's place instead of throwing. */
final class JsonFields {

    private final JsonTree tree;
    private final List<TraceException.Problem> problems = new ArrayList<>();

    JsonFields(JsonTree tree) {
        this.tree = tree;
    }

    void problem(String path, String message) {
        problems.add(tree.problem(path, message));
    }

    void add(TraceException.Problem p) {
        problems.add(p);
    }

    boolean ok() {
        return problems.isEmpty();
    }

    int count() {
        return problems.size();
    }

    void throwIfProblems() {
        if (!problems.isEmpty()) {
            throw new TraceException(problems.size() > RowLoop.MAX_PROBLEMS ? problems.subList(0, RowLoop.MAX_PROBLEMS) : problems);
        }
    }

    JsonObject object(JsonElement e, String path) {
        if (e == null || !e.isJsonObject()) {
            problem(path, "expected an object, got " + kind(e));
            return null;
        }
        return e.getAsJsonObject();
    }

    JsonArray array(JsonElement e, String path) {
        if (e == null || !e.isJsonArray()) {
            problem(path, "expected an array, got " + kind(e));
            return null;
        }
        return e.getAsJsonArray();
    }

    void onlyKnown(JsonObject o, String path, Set<String> known) {
        for (String k : o.keySet()) {
            if (!known.contains(k)) {
                problem(path + "." + k, "unknown field; known fields: " + String.join(", ", new TreeSet<>(known)));
            }
        }
    }

    String string(JsonObject o, String key, String path, String dflt) {
        JsonElement e = o.get(key);
        if (e == null || e.isJsonNull()) {
            if (dflt == null) {
                problem(path + "." + key, "is missing");
            }
            return dflt;
        }
        if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isString()) {
            problem(path + "." + key, "expected a string, got " + kind(e));
            return dflt;
        }
        return e.getAsString();
    }

    /** Seconds (a number, decimals allowed) as milliseconds; {@code dflt} null means required. */
    long seconds(JsonObject o, String key, String path, Long dflt) {
        JsonElement e = o.get(key);
        if (e == null || e.isJsonNull()) {
            if (dflt == null) {
                problem(path + "." + key, "is missing (seconds)");
                return 0;
            }
            return dflt;
        }
        if (!e.isJsonPrimitive() || !e.getAsJsonPrimitive().isNumber()) {
            problem(path + "." + key, "expected a number of seconds, got " + kind(e));
            return 0;
        }
        BigDecimal s = e.getAsBigDecimal();
        if (s.signum() < 0) {
            problem(path + "." + key, "must not be negative, got " + s.toPlainString());
            return 0;
        }
        return s.movePointRight(3).setScale(0, java.math.RoundingMode.HALF_UP).longValue();
    }

    long integer(JsonObject o, String key, String path, long dflt) {
        JsonElement e = o.get(key);
        if (e == null || e.isJsonNull()) {
            return dflt;
        }
        try {
            if (e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber()) {
                return e.getAsBigDecimal().longValueExact();
            }
        } catch (ArithmeticException ex) {
            // reported below
        }
        problem(path + "." + key, "expected a whole number, got " + kind(e));
        return dflt;
    }

    List<String> strings(JsonObject o, String key, String path) {
        List<String> out = new ArrayList<>();
        JsonElement e = o.get(key);
        if (e == null || e.isJsonNull()) {
            return out;
        }
        JsonArray a = array(e, path + "." + key);
        for (int i = 0; a != null && i < a.size(); i++) {
            JsonElement x = a.get(i);
            if (x.isJsonPrimitive() && x.getAsJsonPrimitive().isString()) {
                out.add(x.getAsString());
            } else {
                problem(path + "." + key + "[" + i + "]", "expected a string, got " + kind(x));
            }
        }
        return out;
    }

    /** {@code {"cpu": 100, "mem": 2048, "gpu": 1}} or {@code "cpu=100,mem=2048"}. */
    Resources resources(JsonElement e, String path) {
        if (e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isString()) {
            try {
                return Resources.parse(e.getAsString());
            } catch (IllegalArgumentException ex) {
                problem(path, ex.getMessage());
                return null;
            }
        }
        JsonObject o = object(e, path);
        if (o == null) {
            return null;
        }
        long cpu = 0;
        long mem = 0;
        Map<String, Long> ext = new TreeMap<>();
        for (Map.Entry<String, JsonElement> f : o.entrySet()) {
            long v = amount(f.getValue());
            if (v < 0) {
                problem(path + "." + f.getKey(), "expected a whole number not below 0, got " + kind(f.getValue()));
                continue;
            }
            switch (f.getKey()) {
                case "cpu" -> cpu = v;
                case "mem", "memMb" -> mem = v;
                default -> ext.put(f.getKey(), v);
            }
        }
        try {
            return Resources.of(cpu, mem, ext);
        } catch (IllegalArgumentException ex) {
            problem(path, ex.getMessage());
            return null;
        }
    }

    private static long amount(JsonElement e) {
        try {
            return e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber() ? e.getAsBigDecimal().longValueExact() : -1;
        } catch (ArithmeticException ex) {
            return -1;
        }
    }

    Map<String, String> labels(JsonObject o, String key, String path) {
        Map<String, String> out = new TreeMap<>();
        JsonElement e = o.get(key);
        if (e == null || e.isJsonNull()) {
            return out;
        }
        JsonObject l = object(e, path + "." + key);
        if (l != null) {
            for (Map.Entry<String, JsonElement> f : l.entrySet()) {
                String v = string(l, f.getKey(), path + "." + key, "");
                out.put(f.getKey(), v);
            }
        }
        return out;
    }

    static String kind(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return "nothing";
        }
        if (e.isJsonObject()) {
            return "an object";
        }
        if (e.isJsonArray()) {
            return "an array";
        }
        JsonPrimitive p = e.getAsJsonPrimitive();
        return p.isString() ? "the string \"" + p.getAsString() + "\"" : p.isBoolean() ? p.getAsString() : "the number " + p.getAsString();
    }
}
