package granary.planner.live;

import java.io.StringReader;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import granary.planner.master.MasterClient;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.QuotaTableCodec;
import granary.policy.quota.api.TimeSlice;

/**
 * The quota policy's state as the live view shows it: the slice in force, the next slice boundary,
 * and each group's min and max. Read from {@code GET /api/v1/quota/state} (the policy's {@code quota}
 * report: a {@code slice} line and a {@code groups} table) and the table in force
 * ({@code GET /api/v1/quota}), whose slices say when the next one begins.
 *
 * @param text   one line for the header, e.g. {@code slice 0-9 in force, next boundary 09:00 (slice default)}
 * @param limits group path → its quota in force
 */
public record QuotaSummary(String text, Map<String, Limits> limits) {

    /**
     * A group's quota in force: as shown ({@code 5} workers, {@code {"cpu":400,"mem":8192}}) and as a
     * number in the unit the group's use is compared in (slots for workers, cpu/100 for resources).
     */
    public record Limits(String min, String max, long minValue, long maxValue, boolean workers, String state) {
    }

    public QuotaSummary {
        limits = Map.copyOf(limits);
    }

    /** No quota policy on the master, or not read yet. */
    public static QuotaSummary none(String why) {
        return new QuotaSummary(why, Map.of());
    }

    /**
     * @param state  the answer of {@code GET /quota/state}
     * @param table  the table in force, or null if it could not be read (no next boundary then)
     * @param now    the time in the zone the slices are in (the planner's, unless told otherwise)
     */
    public static QuotaSummary of(JsonObject state, MasterClient.InForce table, ZonedDateTime now) {
        JsonObject sections = state.getAsJsonObject("quota").getAsJsonObject("sections");
        JsonObject line = rows(sections, "slice").size() > 0 ? rows(sections, "slice").get(0).getAsJsonObject() : new JsonObject();
        String slice = text(line, "slice");
        if ("-".equals(slice)) {
            slice = null; // the policy runs without a table: no slice, no limits
        }
        StringBuilder t = new StringBuilder(slice == null ? "no quota table in force: no slice, no limits" : "slice " + slice + " in force");
        if (slice != null) {
            t.append(", ").append(nextBoundary(slice, table, now));
        }
        String lookahead = text(line, "lookahead_until");
        if (lookahead != null) {
            t.append(", lookahead until ").append(lookahead);
        }
        Map<String, Limits> limits = new LinkedHashMap<>();
        for (JsonElement e : rows(sections, "groups")) {
            JsonObject g = e.getAsJsonObject();
            JsonElement id = g.get("id");
            if (slice == null || id != null && id.isJsonPrimitive() && id.getAsLong() < 0) {
                continue; // a group the table does not fund (id -1) has no min and max to draw, only its use
            }
            JsonElement min = g.get("min");
            JsonElement max = g.get("max");
            boolean workers = min != null && min.isJsonPrimitive();
            limits.put(text(g, "group"), new Limits(shown(min), shown(max), value(min), value(max), workers, text(g, "state")));
        }
        return new QuotaSummary(t.toString(), limits);
    }

    /** When the slice in force ends, from the table's slices: the first later hour that another slice covers. */
    static String nextBoundary(String slice, MasterClient.InForce table, ZonedDateTime now) {
        if (table == null) {
            return "next boundary unknown (the table in force could not be read)";
        }
        QuotaTable t;
        try {
            t = QuotaTableCodec.read(new StringReader(table.tableJson()), "GET /api/v1/quota", QuotaTableCodec.workerSpans(table.workerSpans()));
        } catch (RuntimeException e) {
            return "next boundary unknown (the table in force does not read: " + e.getMessage() + ")";
        }
        int hour = now.getHour();
        TimeSlice current = t.sliceAt(hour);
        if (current == null || !current.toString().equals(slice)) {
            // the master's clock or time zone is not the planner's: say what the table says of the slice itself
            TimeSlice s;
            try {
                s = TimeSlice.parse(slice);
            } catch (RuntimeException e) {
                return "next boundary unknown";
            }
            return s.isDefault() ? "next boundary unknown (the master's time zone differs from this one)"
                    : String.format("ends at %02d:00 in the master's time zone", s.to() % 24);
        }
        ZonedDateTime top = now.truncatedTo(ChronoUnit.HOURS);
        for (int k = 1; k <= 24; k++) {
            TimeSlice then = t.sliceAt((hour + k) % 24);
            if (then == null || !then.equals(current)) {
                return String.format("next boundary %02d:00 (%s)", top.plusHours(k).getHour(), then == null ? "no slice" : "slice " + then);
            }
        }
        return "no boundary: the slice covers the whole day";
    }

    private static JsonArray rows(JsonObject sections, String name) {
        JsonObject s = sections.getAsJsonObject(name);
        return s == null || !s.has("rows") ? new JsonArray() : s.getAsJsonArray("rows");
    }

    private static String text(JsonObject o, String key) {
        JsonElement e = o.get(key);
        return e == null || e.isJsonNull() ? null : e.isJsonPrimitive() ? e.getAsString() : e.toString();
    }

    private static String shown(JsonElement e) {
        return e == null || e.isJsonNull() ? "-" : e.isJsonPrimitive() ? e.getAsString() : e.toString();
    }

    private static long value(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return -1;
        }
        if (e.isJsonPrimitive()) {
            return e.getAsLong();
        }
        JsonElement cpu = e.getAsJsonObject().get("cpu");
        return cpu == null ? -1 : cpu.getAsLong();
    }

    /**
     * A group state as docs/multi-tenancy.md, "Group states", names it: {@code Overused} is ordinary
     * borrowing from the shared pool, so it says so.
     */
    public static String stateName(String state) {
        if (state == null) {
            return null;
        }
        return switch (state.toUpperCase(java.util.Locale.ROOT)) {
            case "NORMAL" -> "Normal (within its min)";
            case "OVERUSED" -> "Overused (borrowing from the shared pool: above min, below max)";
            case "DRAWBACK" -> "Drawback (at its max: nothing new until work ends)";
            case "UNFUNDED" -> "Unfunded (no quota in this slice)";
            default -> state;
        };
    }
}
