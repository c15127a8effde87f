package granary.protocol;

import com.google.gson.Strictness;
import granary.codec.json.JsonArray;
import granary.codec.json.JsonBoolean;
import granary.codec.json.JsonNumber;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonString;
import granary.codec.json.JsonValue;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;

/**
 * The wire's JSON as it is sent: the {@link JsonValue} tree {@link MessageWriter} builds, written
 * compact (no whitespace, no HTML escaping, nulls kept) by Gson's streaming writer in strict mode;
 * numbers keep their text. Reading is the codec's strict reader, the one every input takes.
 */
final class GsonWrite {

    private GsonWrite() {
    }

    static String compact(JsonValue v) {
        StringWriter out = new StringWriter();
        try (com.google.gson.stream.JsonWriter w = new com.google.gson.stream.JsonWriter(out)) {
            w.setHtmlSafe(false);
            w.setStrictness(Strictness.STRICT);
            w.setSerializeNulls(true);
            write(v, w);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a StringWriter does not fail
        }
        return out.toString();
    }

    private static void write(JsonValue v, com.google.gson.stream.JsonWriter w) throws IOException {
        if (v instanceof JsonObject o) {
            w.beginObject();
            for (JsonObject.Member m : o.members()) {
                w.name(m.key());
                write(m.value(), w);
            }
            w.endObject();
        } else if (v instanceof JsonArray a) {
            w.beginArray();
            for (JsonValue x : a.items()) {
                write(x, w);
            }
            w.endArray();
        } else if (v instanceof JsonString s) {
            w.value(s.value());
        } else if (v instanceof JsonNumber n) {
            w.jsonValue(n.text());
        } else if (v instanceof JsonBoolean b) {
            w.value(b.value());
        } else {
            w.nullValue();
        }
    }
}
