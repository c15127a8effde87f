package granary.http;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonPrimitive;
import granary.api.model.Allocation;
import granary.api.model.Resources;
import granary.api.report.Cell;
import granary.api.report.Report;
import granary.api.report.Row;
import granary.api.report.Section;
import granary.api.spi.EngineStatus;
import granary.api.spi.GroupView;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.PolicyInfo;
import granary.api.spi.Reason;
import granary.api.spi.UnitView;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The engine's state as the API writes it (docs/api.md, "Resources"). Called on the engine thread
 * inside a query, so every method only reads.
 */
final class Views {

    private Views() {
    }

    /** The keys of {@code granary:status}, with numbers as numbers and resources as objects. */
    static JsonObject status(EngineStatus s) {
        JsonObject o = new JsonObject();
        o.addProperty("time", s.now());
        o.addProperty("nodes", s.nodes());
        o.add("capacity", Json.resources(s.capacity()));
        o.add("free", Json.resources(s.free()));
        o.addProperty("used_share", Double.parseDouble(String.format(Locale.ROOT, "%.3f",
                s.capacity().minus(s.free()).dominantShare(s.capacity()))));
        o.addProperty("jobs", s.jobs());
        o.addProperty("waiting_units", s.waitingUnits());
        o.addProperty("waiting_slots", s.waitingSlots());
        o.addProperty("granted_slots", s.grantedSlots());
        o.addProperty("decisions", s.decisions());
        new TreeMap<>(s.policies()).forEach((point, policy) -> o.addProperty("policy." + point, policy));
        o.addProperty("health", s.health());
        for (int i = 0; i < s.held().size(); i++) {
            o.addProperty("held." + (i + 1), s.held().get(i));
        }
        new TreeMap<>(s.problems()).forEach((policy, problem) -> o.addProperty("problem." + policy, problem));
        return o;
    }

    /** {@code blacklisted}, {@code idle} (nothing granted), {@code full} (no cpu or no memory free) or {@code busy}. */
    static String state(NodeView n) {
        if (n.blacklisted()) {
            return "blacklisted";
        }
        if (n.granted().isZero()) {
            return "idle";
        }
        Resources free = n.free();
        return free.cpu() <= 0 || free.memMb() <= 0 ? "full" : "busy";
    }

    static JsonObject node(NodeView n, boolean withUnits) {
        JsonObject o = new JsonObject();
        o.addProperty("name", n.name());
        o.addProperty("room", n.room());
        o.addProperty("state", state(n));
        o.add("labels", Json.strings(n.labels()));
        o.add("capacity", Json.resources(n.capacity()));
        o.add("granted", Json.resources(n.granted()));
        o.add("free", Json.resources(n.free()));
        o.addProperty("blacklisted", n.blacklisted());
        if (withUnits) {
            JsonObject units = new JsonObject();
            new TreeMap<>(n.allocations()).forEach((u, slots) -> units.addProperty(u.toString(), slots));
            o.add("units", units);
        } else {
            o.addProperty("units", n.allocations().size());
        }
        return o;
    }

    /** {@code waiting} (wants slots, holds none), {@code running} (holds slots) or {@code idle}. */
    static String state(JobView j) {
        boolean holds = false;
        boolean wants = false;
        for (UnitView u : j.units()) {
            holds |= u.granted() > 0;
            wants |= u.remaining() > 0;
        }
        return holds ? "running" : wants ? "waiting" : "idle";
    }

    static JsonObject job(JobView j, boolean withGrants) {
        JsonObject o = new JsonObject();
        o.addProperty("id", j.id());
        o.addProperty("queue", j.group());
        o.addProperty("user", j.user());
        o.addProperty("state", state(j));
        o.addProperty("productionLevel", j.productionLevel());
        o.addProperty("gang", j.gang());
        o.addProperty("submitTime", j.submitTime());
        long desired = 0;
        long granted = 0;
        JsonArray units = new JsonArray();
        for (UnitView u : j.units()) {
            desired += u.desired();
            granted += u.granted();
            units.add(unit(u, withGrants));
        }
        o.addProperty("desired", desired);
        o.addProperty("granted", granted);
        o.add("units", units);
        return o;
    }

    static JsonObject unit(UnitView u, boolean withGrants) {
        JsonObject o = new JsonObject();
        o.addProperty("name", u.id().unit());
        o.addProperty("kind", u.kind().name().toLowerCase(Locale.ROOT));
        o.add("slot", Json.resources(u.slot()));
        o.addProperty("priority", u.priority());
        o.addProperty("desired", u.desired());
        o.addProperty("granted", u.granted());
        o.addProperty("remaining", u.remaining());
        if (u.remaining() > 0) {
            o.addProperty("waitingSince", u.waitingSince());
        }
        Reason r = u.waitReason();
        if (r != null && u.remaining() > 0) {
            o.add("waitReason", reason(r));
        }
        if (withGrants) {
            JsonArray grants = new JsonArray();
            for (Allocation a : u.grants()) {
                JsonObject g = new JsonObject();
                g.addProperty("node", a.node());
                g.addProperty("slots", a.slots());
                g.addProperty("since", a.since());
                grants.add(g);
            }
            o.add("grants", grants);
        }
        return o;
    }

    static JsonObject reason(Reason r) {
        JsonObject o = new JsonObject();
        o.addProperty("code", r.code().name());
        o.addProperty("subject", r.subject());
        o.addProperty("message", r.message());
        if (r.limit() >= 0) {
            o.addProperty("limit", r.limit());
        }
        if (r.value() >= 0) {
            o.addProperty("value", r.value());
        }
        return o;
    }

    static JsonObject group(GroupView g) {
        JsonObject o = new JsonObject();
        o.addProperty("path", g.name());
        o.add("used", Json.resources(g.used()));
        o.addProperty("usedSlots", g.usedSlots());
        o.addProperty("waitingUnits", g.waitingUnits());
        o.addProperty("waitingSlots", g.waitingSlots());
        o.addProperty("jobs", g.jobs());
        o.addProperty("runningJobs", g.runningJobs());
        return o;
    }

    static JsonObject policy(PolicyInfo p) {
        JsonObject o = new JsonObject();
        o.addProperty("name", p.name());
        o.add("points", Json.array(p.points()));
        o.addProperty("origin", p.origin());
        o.addProperty("selected", p.selected());
        o.addProperty("active", p.active());
        return o;
    }

    /**
     * A policy's report as data: its message, then per section its layout and rows, each row an
     * object of its cells (a nested row carries its {@code depth}).
     */
    static JsonObject report(Report r) {
        JsonObject o = new JsonObject();
        if (r.message() != null) {
            o.addProperty("message", r.message());
        }
        JsonObject sections = new JsonObject();
        for (Section s : r.sections()) {
            JsonObject so = new JsonObject();
            so.addProperty("layout", s.layout().name().toLowerCase(Locale.ROOT));
            JsonArray rows = new JsonArray();
            for (Row row : s.rows()) {
                JsonObject ro = new JsonObject();
                if (row.depth() > 0) {
                    ro.addProperty("depth", row.depth());
                }
                for (Cell c : row.cells()) {
                    ro.add(c.key(), value(c.value()));
                }
                rows.add(ro);
            }
            so.add("rows", rows);
            sections.add(s.name(), so);
        }
        o.add("sections", sections);
        return o;
    }

    static JsonElement value(Object v) {
        if (v == null) {
            return com.google.gson.JsonNull.INSTANCE;
        }
        if (v instanceof Number n) {
            return new JsonPrimitive(n);
        }
        if (v instanceof Boolean b) {
            return new JsonPrimitive(b);
        }
        if (v instanceof Resources r) {
            return Json.resources(r);
        }
        if (v instanceof Map<?, ?> m) {
            JsonObject o = new JsonObject();
            new TreeMap<>(m).forEach((k, x) -> o.add(String.valueOf(k), value(x)));
            return o;
        }
        return new JsonPrimitive(String.valueOf(v));
    }
}
