package granary.agent;

import granary.api.model.InvalidRequestException;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.codec.JobCodec;
import granary.codec.json.Json;
import granary.codec.json.JsonArray;
import granary.codec.json.JsonLimits;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPosition;
import granary.codec.json.JsonReader;
import granary.codec.json.JsonValue;
import granary.codec.json.JsonWriter;
import granary.protocol.Cap;
import granary.protocol.Program;
import granary.protocol.disk.Disk;
import granary.protocol.disk.Sealed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The agent's cap table on disk, so that a restarted agent holds its caps before the master
 * resends them, and so that a cap is on disk before the next inbox poll acknowledges it.
 *
 * <p>A {@link Sealed} file (header {@value #MAGIC}, format {@value #FORMAT}) whose body is a JSON
 * object:
 * <pre>
 * {"node":"n1","incarnation":1700000000000,"epoch":0,"caps":[{"jobMaster":"jm1","unit":"j/u","slots":3,"key":"…"}]}
 * </pre>
 * A file that is torn, changed or does not read is not loaded at all: {@link #recover} moves it
 * aside to {@code <name>.corrupt-<millis>} and the agent starts from the workers it finds running
 * (docs/recovery.md, "A torn checkpoint"). Written through {@link Disk#replace}: forced, renamed.
 */
final class Checkpoint {

    static final int FORMAT = 1;
    static final String MAGIC = "granary-agent-checkpoint";
    private static final Set<String> BODY_FIELDS = Set.of("node", "incarnation", "caps", "epoch");
    private static final Set<String> GRANT_FIELDS = Set.of("jobMaster", "unit", "slots", "key", "size", "online", "launch");
    private static final Set<String> LAUNCH_FIELDS = Set.of("command", "environment", "workingDirectory");

    /** What a checkpoint held. */
    record State(String node, long incarnation, List<Cap.Grant> caps, long epoch) {
        State {
            caps = List.copyOf(caps);
        }

        /** A state of epoch 0 (a node never declared lost). */
        State(String node, long incarnation, List<Cap.Grant> caps) {
            this(node, incarnation, caps, 0);
        }
    }

    /** What {@link #recover} found: the state (null if none or damaged), and for a damaged file why and where it went. */
    record Recovery(State state, CheckpointException corrupt, String movedTo) {
    }

    private final Sealed sealed;

    Checkpoint(Disk disk, String name) {
        this.sealed = new Sealed(disk, name, MAGIC, FORMAT);
    }

    /** Where the file is. */
    String file() {
        return sealed.where();
    }

    void write(State s) throws IOException {
        sealed.store(body(s).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Reads the checkpoint.
     *
     * @return the state, or null if there is no checkpoint
     * @throws CheckpointException naming the file and what is wrong with it
     * @throws IOException         if it exists but cannot be read
     */
    State read() throws IOException, CheckpointException {
        byte[] body;
        try {
            body = sealed.read();
        } catch (Sealed.Damaged ex) {
            throw new CheckpointException(file(), ex.getMessage());
        }
        return body == null ? null : parse(body);
    }

    /** Reads the checkpoint; a damaged one is moved aside and reported, never half-loaded. */
    Recovery recover(long nowMillis) throws IOException {
        State[] state = new State[1];
        Sealed.Loaded l = sealed.load(nowMillis, body -> {
            try {
                state[0] = parse(body);
            } catch (CheckpointException ex) {
                throw Sealed.damaged(ex.problem());
            }
        });
        return l.damage() == null ? new Recovery(state[0], null, null)
                : new Recovery(null, new CheckpointException(file(), l.damage()), l.movedTo());
    }

    private State parse(byte[] body) throws CheckpointException {
        try {
            JsonValue doc = JsonReader.read(body, file(), JsonLimits.DEFAULT);
            Json json = new Json(file());

            JsonObject o = json.object(doc, "$");
            if (o == null) {
                json.throwIfProblems();
            }
            json.onlyKnown(o, "$", BODY_FIELDS);
            String node = json.string(o, "node", "$", null);
            long incarnation = json.integer(o, "incarnation", "$", null);
            List<Cap.Grant> caps = new ArrayList<>();
            JsonValue list = json.field(o, "caps", "$", true);
            JsonArray a = list == null ? null : json.array(list, "$.caps");
            for (int i = 0; a != null && i < a.size(); i++) {
                Cap.Grant g = grant(json, a.get(i), "$.caps[" + i + "]");
                if (g != null) {
                    caps.add(g);
                }
            }
            json.throwIfProblems();
            long epoch = o.get("epoch") == null ? 0 : json.integer(o, "epoch", "$", null);
            if (epoch < 0) {
                json.problem(o.get("epoch"), "$.epoch", "must not be negative, got " + epoch);
            }
            json.throwIfProblems();
            return new State(node, incarnation, caps, epoch);
        } catch (InvalidRequestException ex) {
            throw corrupt("the checksum matches but the body is not a valid checkpoint: " + ex.getMessage());
        }
    }

    private static Cap.Grant grant(Json json, JsonValue v, String path) {
        JsonObject g = json.object(v, path);
        if (g == null) {
            return null;
        }
        json.onlyKnown(g, path, GRANT_FIELDS);
        String jm = json.string(g, "jobMaster", path, null);
        String unit = json.string(g, "unit", path, null);
        int slots = json.int32(g, "slots", path, null);
        String key = json.string(g, "key", path, null);
        // size and online came with protocol version 2; a checkpoint written before has neither.
        JsonValue sizeField = json.field(g, "size", path, false);
        Resources size = sizeField == null ? Resources.ZERO : JobCodec.resources(json, sizeField, path + ".size");
        JsonValue onlineField = json.field(g, "online", path, false);
        boolean online = onlineField != null && json.bool(g, "online", path, false);
        if (slots < 0) {
            json.problem(g.get("slots"), path + ".slots", "must be at least 0, got " + slots);
        }
        // a cap that carries its own launch (a restarted job master, docs/recovery.md) keeps it
        JsonValue launchField = json.field(g, "launch", path, false);
        Program launch = launchField == null ? null : launch(json, launchField, path + ".launch");
        if (jm == null || unit == null || key == null || slots < 0 || size == null || launchField != null && launch == null) {
            return null;
        }
        try {
            return new Cap.Grant(jm, UnitId.parse(unit), slots, key, size, online, launch);
        } catch (InvalidRequestException ex) {
            json.problem(g.get("unit"), path, ex);
            return null;
        }
    }

    private static Program launch(Json json, JsonValue v, String path) {
        JsonObject l = json.object(v, path);
        if (l == null) {
            return null;
        }
        json.onlyKnown(l, path, LAUNCH_FIELDS);
        List<String> command = new ArrayList<>();
        JsonValue c = json.field(l, "command", path, true);
        JsonArray a = c == null ? null : json.array(c, path + ".command");
        for (int i = 0; a != null && i < a.size(); i++) {
            if (a.get(i) instanceof granary.codec.json.JsonString str) {
                command.add(str.value());
            } else {
                json.problem(a.get(i), path + ".command[" + i + "]", "expected a string, got " + Json.kind(a.get(i)));
            }
        }
        String dir = json.string(l, "workingDirectory", path, null);
        if (a == null || command.isEmpty() || dir == null) {
            json.problem(l, path, "expected a command that is not empty and a working directory");
            return null;
        }
        return new Program(command, json.labels(l, "environment", path), dir);
    }

    private static String body(State s) {
        List<JsonValue> caps = new ArrayList<>();
        for (Cap.Grant g : s.caps()) {
            JsonObject.Builder o = JsonObject.builder().put("jobMaster", g.jobMaster()).put("unit", g.unit().toString())
                    .put("slots", g.slots()).put("key", g.key()).put("size", JobCodec.resourcesJson(g.size()))
                    .put("online", g.online());
            if (g.launch() != null) {
                JsonObject.Builder env = JsonObject.builder();
                g.launch().environment().forEach(env::put);
                List<JsonValue> command = new ArrayList<>();
                g.launch().command().forEach(x -> command.add(JsonValue.of(x)));
                o.put("launch", JsonObject.builder().put("command", new JsonArray(command, JsonPosition.NONE))
                        .put("environment", env.build()).put("workingDirectory", g.launch().workingDirectory()).build());
            }
            caps.add(o.build());
        }
        return JsonWriter.write(JsonObject.builder().put("node", s.node()).put("incarnation", s.incarnation()).put("epoch", s.epoch())
                .put("caps", new JsonArray(caps, JsonPosition.NONE)).build());
    }

    private CheckpointException corrupt(String problem) {
        return new CheckpointException(file(), problem);
    }
}
