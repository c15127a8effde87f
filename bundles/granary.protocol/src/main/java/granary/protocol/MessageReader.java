package granary.protocol;

import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.Problem;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.codec.JobCodec;
import granary.codec.json.Json;
import granary.codec.json.JsonArray;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPath;
import granary.codec.json.JsonString;
import granary.codec.json.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;

/**
 * Reads each message type from its JSON object, recording every problem in a {@link Json} (unknown
 * field, wrong type, missing field, negative count) at its JSON path. Every field is required
 * except {@code heartbeat.capacity} and an ack problem's {@code limit} and {@code value}. A method
 * returns null or a partial value when there were problems; the caller checks {@link Json#ok()}.
 */
final class MessageReader {

    private final Json json;

    MessageReader(Json json) {
        this.json = json;
    }

    Message read(String type, JsonValue e, String path) {
        JsonObject o = json.object(e, path);
        if (o == null) {
            return null;
        }
        return switch (type) {
            case "register" -> register(o, path);
            case "heartbeat" -> heartbeat(o, path);
            case "request" -> request(o, path);
            case "hint" -> hint(o, path);
            case "cap" -> cap(o, path);
            case "plan" -> plan(o, path);
            case "ack" -> ack(o, path);
            default -> throw new IllegalArgumentException("unknown message type " + type);
        };
    }

    private Register register(JsonObject o, String p) {
        known(o, p, "node", "room", "labels", "capacity", "endpoint", "caps", "epoch");
        String node = json.string(o, "node", p, null);
        String room = json.string(o, "room", p, null);
        Map<String, String> labels = json.labels(o, "labels", p);
        json.field(o, "labels", p, true);
        Resources capacity = resources(o, "capacity", p, true);
        String endpoint = json.string(o, "endpoint", p, null);
        List<Cap.Grant> caps = list(o, "caps", p, this::grant);
        long epoch = epoch(o, p);
        return json.ok() ? new Register(node, room, labels, capacity, endpoint, caps, epoch) : null;
    }

    private Heartbeat heartbeat(JsonObject o, String p) {
        known(o, p, "started", "exited", "capacity", "uncapped", "usage", "health");
        List<Heartbeat.Worker> started = list(o, "started", p, this::worker);
        List<Heartbeat.Exit> exited = list(o, "exited", p, (e, at) -> object(e, at, x ->
                exit(x, at, json.int32(x, "exitCode", at, null), (code, stopped) -> new Heartbeat.Exit(unit(x, at),
                        count(x, "slot", at), code, stopped, oom(x, at))),
                "unit", "slot", "exitCode", "stopped", "oom"));
        Resources capacity = resources(o, "capacity", p, false);
        List<Heartbeat.Worker> uncapped = o.get("uncapped") == null ? List.of() : list(o, "uncapped", p, this::worker);
        // usage and health (protocol version 6): absent means not reported, as from an older agent
        Heartbeat.Usage usage = o.get("usage") == null ? null : object(o.get("usage"), p + ".usage", x -> new Heartbeat.Usage(
                resources(x, "node", p + ".usage", true), list(x, "workers", p + ".usage", (e, at) -> object(e, at, w ->
                        new Heartbeat.WorkerUsage(unit(w, at), count(w, "slot", at), resources(w, "used", at, true)),
                        "unit", "slot", "used"))), "node", "workers");
        Heartbeat.Health health = o.get("health") == null ? null : object(o.get("health"), p + ".health", x -> {
            json.field(x, "healthy", p + ".health", true);
            boolean healthy = json.bool(x, "healthy", p + ".health", true);
            String reason = x.get("reason") == null ? "" : json.string(x, "reason", p + ".health", null);
            return new Heartbeat.Health(healthy, reason);
        }, "healthy", "reason");
        return json.ok() ? new Heartbeat(started, exited, capacity, uncapped, usage, health) : null;
    }

    private Request request(JsonObject o, String p) {
        known(o, p, "full", "jobs", "desires", "cancels", "releases", "holdings", "restart", "mark");
        json.field(o, "full", p, true);
        boolean full = json.bool(o, "full", p, false);
        List<JobSpec> jobs = list(o, "jobs", p, (e, at) -> JobCodec.job(json, e, at, Set.of(), Set.of()));
        List<Request.Desire> desires = list(o, "desires", p, (e, at) -> object(e, at, x ->
                new Request.Desire(unit(x, at), count(x, "desired", at), avoid(x, at)), "unit", "desired", "avoid"));
        List<String> cancels = list(o, "cancels", p, this::string);
        List<Request.Release> releases = list(o, "releases", p, (e, at) -> object(e, at, x ->
                new Request.Release(unit(x, at), json.string(x, "node", at, null), count(x, "slots", at)),
                "unit", "node", "slots"));
        List<Request.Holding> holdings = list(o, "holdings", p, (e, at) -> object(e, at, x ->
                new Request.Holding(unit(x, at), json.string(x, "node", at, null), count(x, "slots", at)),
                "unit", "node", "slots"));
        if (!full && !holdings.isEmpty()) {
            json.problem(o, p + ".holdings", "only a full request carries holdings; a delta has none");
        }
        Request.Restart restart = o.get("restart") == null ? null : restart(o.get("restart"), p + ".restart");
        if (!full && o.get("restart") != null) {
            json.problem(o.get("restart"), p + ".restart", "only a full request carries a restart spec; a delta has none");
        }
        long mark = notNegative(o, "mark", p);
        return json.ok() ? new Request(full, jobs, desires, cancels, releases, holdings, restart, mark) : null;
    }

    /** A job master's restart spec (docs/protocol.md, "Restarting a job master"): a program, a slot size, maybe its node. */
    private Request.Restart restart(JsonValue e, String at) {
        return object(e, at, x -> {
            Program program = program(x, at);
            Resources size = resources(x, "size", at, true);
            if (size != null) {
                slotRules(x.get("size"), at + ".size", size);
            }
            String node = x.get("node") == null ? null : json.string(x, "node", at, null);
            if (node != null && !granary.api.model.Names.isValid(node)) {
                json.problem(x.get("node"), at + ".node", "'" + node + "' is not a node name: " + granary.api.model.Names.RULE);
            }
            return new Request.Restart(program, size, node);
        }, "command", "environment", "workingDirectory", "size", "node");
    }

    /** A restart's slot follows a unit's slot rules (not zero, nothing negative, within Resources.MAX_AMOUNT): the same check. */
    private void slotRules(JsonValue e, String path, Resources size) {
        try {
            granary.api.model.UnitSpec.builder("job-master").slot(size).desired(1).build();
        } catch (InvalidRequestException ex) {
            for (Problem p : ex.problems()) {
                String field = p.field().startsWith("slot") ? path + p.field().substring("slot".length()) : path;
                json.problem(e, field, p.message());
            }
        }
    }

    /** A program to start: a command that is not empty and whose program name is not empty, its environment and directory. */
    private Program program(JsonObject x, String at) {
        json.field(x, "environment", at, true);
        List<String> command = list(x, "command", at, this::string);
        if (x.get("command") instanceof JsonArray a && a.size() == 0) {
            json.problem(x.get("command"), at + ".command", "is empty; expected the program and its arguments");
        } else if (!command.isEmpty() && command.get(0).isEmpty()) {
            json.problem(x.get("command"), at + ".command[0]", "the program's name is empty");
        }
        String dir = json.string(x, "workingDirectory", at, null);
        return new Program(command, json.labels(x, "environment", at), dir);
    }

    private Hint hint(JsonObject o, String p) {
        known(o, p, "placements", "exits", "nodes", "through", "passes");
        List<Hint.Placement> placements = list(o, "placements", p, (e, at) -> object(e, at, x ->
                new Hint.Placement(unit(x, at), json.string(x, "node", at, null), count(x, "slots", at),
                        json.string(x, "endpoint", at, null), epoch(x, at)),
                "unit", "node", "slots", "endpoint", "epoch"));
        List<Hint.Exit> exits = list(o, "exits", p, (e, at) -> object(e, at, x ->
                exit(x, at, json.int32(x, "exitCode", at, null), (code, stopped) -> new Hint.Exit(unit(x, at),
                        json.string(x, "node", at, null), count(x, "slot", at), code, stopped, oom(x, at))),
                "unit", "node", "slot", "exitCode", "stopped", "oom"));
        List<Hint.NodeState> nodes = o.get("nodes") == null ? List.of() : list(o, "nodes", p, (e, at) -> object(e, at, x -> {
            String node = json.string(x, "node", at, null);
            String state = json.string(x, "state", at, null);
            if (state != null && !Hint.NodeState.LOST.equals(state) && !Hint.NodeState.BACK.equals(state)) {
                json.problem(x.get("state"), at + ".state", "expected \"" + Hint.NodeState.LOST + "\" or \""
                        + Hint.NodeState.BACK + "\", got \"" + state + "\"");
                return null;
            }
            return node == null || state == null ? null : new Hint.NodeState(node, state);
        }, "node", "state"));
        long through = notNegative(o, "through", p);
        List<Hint.Pass> passes = o.get("passes") == null ? List.of() : list(o, "passes", p, (e, at) -> object(e, at, x -> {
            String node = json.string(x, "node", at, null);
            String pass = json.string(x, "pass", at, null);
            return node == null || pass == null ? null : new Hint.Pass(node, pass);
        }, "node", "pass"));
        return json.ok() ? new Hint(placements, exits, nodes, through, passes) : null;
    }

    private Cap cap(JsonObject o, String p) {
        known(o, p, "grants", "withdrawals", "full", "reason");
        List<Cap.Grant> grants = list(o, "grants", p, this::grant);
        List<Cap.Grant> withdrawals = list(o, "withdrawals", p, this::grant);
        json.field(o, "full", p, true);
        boolean full = json.bool(o, "full", p, false);
        String reason = o.get("reason") == null ? null : json.string(o, "reason", p, null);
        return json.ok() ? new Cap(grants, withdrawals, full, reason) : null;
    }

    private Plan plan(JsonObject o, String p) {
        known(o, p, "launches");
        List<Plan.Launch> launches = list(o, "launches", p, (e, at) -> object(e, at, x -> {
            json.field(x, "environment", at, true);
            boolean probe = x.get("probe") != null && json.bool(x, "probe", at, false);
            return new Plan.Launch(unit(x, at), count(x, "slot", at), list(x, "command", at, this::string),
                    json.labels(x, "environment", at), json.string(x, "workingDirectory", at, null), epoch(x, at), probe);
        }, "unit", "slot", "command", "environment", "workingDirectory", "epoch", "probe"));
        return json.ok() ? new Plan(launches) : null;
    }

    private Ack ack(JsonObject o, String p) {
        known(o, p, "sequence", "problems");
        long sequence = json.integer(o, "sequence", p, null);
        List<Problem> problems = list(o, "problems", p, (e, at) -> object(e, at, x -> new Problem(
                json.string(x, "subject", at, null), json.string(x, "field", at, null),
                json.string(x, "message", at, null), optionalLong(x, "limit", at), optionalLong(x, "value", at)),
                "subject", "field", "message", "limit", "value"));
        return json.ok() ? new Ack(sequence, problems) : null;
    }

    private Heartbeat.Worker worker(JsonValue e, String at) {
        return object(e, at, x -> new Heartbeat.Worker(unit(x, at), count(x, "slot", at)), "unit", "slot");
    }

    private Cap.Grant grant(JsonValue e, String at) {
        return object(e, at, x -> {
            json.field(x, "online", at, true);
            Program launch = x.get("launch") == null ? null
                    : object(x.get("launch"), at + ".launch", l -> program(l, at + ".launch"), "command", "environment", "workingDirectory");
            return new Cap.Grant(json.string(x, "jobMaster", at, null), unit(x, at), count(x, "slots", at),
                    json.string(x, "key", at, null), resources(x, "size", at, true), json.bool(x, "online", at, false), launch);
        }, "jobMaster", "unit", "slots", "key", "size", "online", "launch");
    }

    private String string(JsonValue e, String at) {
        if (e instanceof JsonString s) {
            return s.value();
        }
        json.problem(e, at, "expected a string, got " + Json.kind(e));
        return null;
    }

    /** Reads an object with exactly the {@code fields} given (null if it had problems). */
    private <T> T object(JsonValue e, String at, java.util.function.Function<JsonObject, T> build, String... fields) {
        JsonObject x = json.object(e, at);
        if (x == null) {
            return null;
        }
        int before = json.count();
        known(x, at, fields);
        try {
            T t = build.apply(x);
            return json.count() == before ? t : null;
        } catch (RuntimeException ex) {
            // A record refuses the null that a missing or wrong field was read as; that field's
            // problem is recorded already. Anything else is a bug and goes on.
            if (json.count() == before) {
                throw ex;
            }
            return null;
        }
    }

    /** A required array field, each item read by {@code each} at its own path. */
    private <T> List<T> list(JsonObject o, String field, String path, BiFunction<JsonValue, String, T> each) {
        List<T> out = new ArrayList<>();
        JsonValue e = json.field(o, field, path, true);
        String p = JsonPath.member(path, field);
        JsonArray a = e == null ? null : json.array(e, p);
        for (int i = 0; a != null && i < a.size(); i++) {
            T t = each.apply(a.get(i), JsonPath.item(p, i));
            if (t != null) {
                out.add(t);
            }
        }
        return out;
    }

    /** A desire's nodes to keep its unit off: null when absent (unchanged), at most {@link Request#MAX_AVOIDED}. */
    private Set<String> avoid(JsonObject o, String path) {
        if (o.get("avoid") == null) {
            return null;
        }
        List<String> nodes = list(o, "avoid", path, this::string);
        for (int i = 0; i < nodes.size() && i < Request.MAX_AVOIDED; i++) {
            if (!granary.api.model.Names.isValid(nodes.get(i))) {
                json.problem(o.get("avoid"), JsonPath.item(JsonPath.member(path, "avoid"), i), "'" + nodes.get(i)
                        + "' is not a node name: " + granary.api.model.Names.RULE);
            }
        }
        if (nodes.size() > Request.MAX_AVOIDED) {
            json.problem(o.get("avoid"), JsonPath.member(path, "avoid"), "at most " + Request.MAX_AVOIDED
                    + " nodes to keep a unit off, got " + nodes.size());
        }
        return Set.copyOf(nodes);
    }

    private UnitId unit(JsonObject o, String path) {
        String text = json.string(o, "unit", path, null);
        if (text == null) {
            return null;
        }
        try {
            return UnitId.parse(text);
        } catch (InvalidRequestException ex) {
            json.problem(o.get("unit"), JsonPath.member(path, "unit"), "expected job/unit, got " + Json.kind(o.get("unit")));
            return null;
        }
    }

    /** A whole number from 0 to {@link Integer#MAX_VALUE}. */
    private int count(JsonObject o, String field, String path) {
        int v = json.int32(o, field, path, null);
        if (v < 0) {
            json.problem(o.get(field), JsonPath.member(path, field), "must not be negative, got " + v);
        }
        return v;
    }

    /** An exit's optional {@code oom} (protocol version 6): null when absent, an ordinary end. */
    private Heartbeat.Oom oom(JsonObject x, String at) {
        if (x.get("oom") == null) {
            return null;
        }
        String here = at + ".oom";
        return object(x.get("oom"), here, o -> new Heartbeat.Oom(notNegative(o, "limitMiB", here), notNegative(o, "peakMiB", here)),
                "limitMiB", "peakMiB");
    }

    /** An exit's code and whether its agent stopped it ({@code stopped}; absent: a stop exactly when the code is -15). */
    private <T> T exit(JsonObject x, String at, Integer code, java.util.function.BiFunction<Integer, Boolean, T> make) {
        int c = code == null ? 0 : code;
        boolean stopped = x.get("stopped") == null ? c == Heartbeat.STOPPED : json.bool(x, "stopped", at, false);
        return make.apply(c, stopped);
    }

    /** An optional {@code epoch} (protocol version 4): 0 when absent, never negative. */
    private long epoch(JsonObject o, String path) {
        return notNegative(o, "epoch", path);
    }

    /** An optional whole number that is not negative; 0 when absent. */
    private long notNegative(JsonObject o, String field, String path) {
        if (o.get(field) == null) {
            return 0;
        }
        long v = json.integer(o, field, path, 0L);
        if (v < 0) {
            json.problem(o.get(field), JsonPath.member(path, field), "must not be negative, got " + v);
            return 0;
        }
        return v;
    }

    private Long optionalLong(JsonObject o, String field, String path) {
        return o.get(field) == null ? null : json.integer(o, field, path, 0L);
    }

    private Resources resources(JsonObject o, String field, String path, boolean required) {
        JsonValue e = json.field(o, field, path, required);
        return e == null ? null : JobCodec.resources(json, e, JsonPath.member(path, field));
    }

    /** Every field of {@code o} among {@code fields}, or a problem for each that is not (the set made only then). */
    private void known(JsonObject o, String path, String... fields) {
        for (JsonObject.Member m : o.members()) {
            if (!among(fields, m.key())) {
                json.onlyKnown(o, path, Set.of(fields));
                return;
            }
        }
    }

    private static boolean among(String[] fields, String key) {
        for (String f : fields) {
            if (f.equals(key)) {
                return true;
            }
        }
        return false;
    }
}
