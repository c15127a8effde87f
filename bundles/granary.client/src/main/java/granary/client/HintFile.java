package granary.client;

import granary.api.model.UnitId;
import granary.codec.json.Json;
import granary.codec.json.JsonArray;
import granary.codec.json.JsonLimits;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPosition;
import granary.codec.json.JsonReader;
import granary.codec.json.JsonValue;
import granary.codec.json.JsonWriter;
import granary.api.model.InvalidRequestException;
import granary.protocol.disk.Disk;
import granary.protocol.disk.Sealed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The slots a job master's hints gave it, on disk (case 15 of docs/recovery.md): a {@link Sealed}
 * file {@value #NAME} (header {@value #MAGIC}) whose body is
 * {@code {"held":[{"unit":"j/u","node":"n1","slots":2,"endpoint":"http://…"}]}}, forced to disk and
 * renamed over the old one on every change. A torn or changed file is moved aside and not loaded.
 */
final class HintFile {

    static final String NAME = "hints.checkpoint";
    static final String MAGIC = "granary-job-master-hints";
    static final int FORMAT = 1;
    private static final Set<String> FIELDS = Set.of("unit", "node", "slots", "endpoint", "epoch");

    /** What a load found. */
    record Loaded(List<Holdings.Entry> held, String where, String damage, String movedTo) {
    }

    private final Sealed sealed;
    private List<Holdings.Entry> last;

    HintFile(Disk disk) {
        this.sealed = new Sealed(disk, NAME, MAGIC, FORMAT);
    }

    Loaded load(long nowMillis) {
        List<Holdings.Entry> out = new ArrayList<>();
        try {
            Sealed.Loaded l = sealed.load(nowMillis, body -> {
                out.clear();
                out.addAll(parse(body));
            });
            if (l.damage() != null) {
                out.clear();
            }
            last = List.copyOf(out);
            return new Loaded(out, sealed.where(), l.damage(), l.movedTo());
        } catch (IOException ex) {
            return new Loaded(List.of(), sealed.where(), "cannot be read: " + ex.getMessage(), null);
        }
    }

    /** Writes {@code held} unless it is what the file holds already; a failure is told to {@code problems}. */
    void store(List<Holdings.Entry> held, Consumer<String> problems) {
        if (held.equals(last)) {
            return;
        }
        List<JsonValue> items = new ArrayList<>();
        for (Holdings.Entry e : held) {
            items.add(JsonObject.builder().put("unit", e.unit().toString()).put("node", e.node()).put("slots", e.slots())
                    .put("endpoint", e.endpoint()).put("epoch", e.epoch()).build());
        }
        String body = JsonWriter.write(JsonObject.builder().put("held", new JsonArray(items, JsonPosition.NONE)).build());
        try {
            sealed.store(body.getBytes(StandardCharsets.UTF_8));
            last = List.copyOf(held);
        } catch (IOException ex) {
            problems.accept("cannot write the hints to " + sealed.where() + ": " + ex.getMessage() + " (tried again with the next hint)");
        }
    }

    private List<Holdings.Entry> parse(byte[] body) throws Sealed.Damaged {
        try {
            JsonValue doc = JsonReader.read(body, sealed.where(), JsonLimits.DEFAULT);
            Json json = new Json(sealed.where());
            JsonObject o = json.object(doc, "$");
            json.throwIfProblems();
            json.onlyKnown(o, "$", Set.of("held"));
            JsonValue list = json.field(o, "held", "$", true);
            JsonArray a = list == null ? null : json.array(list, "$.held");
            List<Holdings.Entry> out = new ArrayList<>();
            for (int i = 0; a != null && i < a.size(); i++) {
                String at = "$.held[" + i + "]";
                JsonObject x = json.object(a.get(i), at);
                if (x == null) {
                    continue;
                }
                json.onlyKnown(x, at, FIELDS);
                String unit = json.string(x, "unit", at, null);
                String node = json.string(x, "node", at, null);
                int slots = json.int32(x, "slots", at, null);
                String endpoint = json.string(x, "endpoint", at, null);
                long epoch = x.get("epoch") == null ? 0 : json.integer(x, "epoch", at, 0L);
                if (unit != null && node != null && endpoint != null && slots > 0) {
                    out.add(new Holdings.Entry(UnitId.parse(unit), node, slots, endpoint, epoch));
                } else if (slots <= 0) {
                    json.problem(x, at + ".slots", "must be more than 0, got " + slots);
                }
            }
            json.throwIfProblems();
            return out;
        } catch (InvalidRequestException ex) {
            throw Sealed.damaged("the checksum matches but the body does not read: " + ex.getMessage());
        }
    }
}
