package granary.jobmaster;

import granary.api.model.InvalidRequestException;
import granary.codec.json.Json;
import granary.codec.json.JsonArray;
import granary.codec.json.JsonLimits;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPosition;
import granary.codec.json.JsonReader;
import granary.codec.json.JsonValue;
import granary.codec.json.JsonWriter;
import granary.protocol.disk.Disk;
import granary.protocol.disk.Sealed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The sample job master's progress on disk, so that a job master started again (by hand, by its
 * supervisor, or by the master: docs/recovery.md "Restarting a lost job master") goes on where the
 * last one stopped instead of running finished tasks again: every task's and service slot's state,
 * attempts and runs, and the node of a run in progress. A {@link Sealed} file {@value #NAME}, written
 * before every launch (so that a launch that happened is never forgotten) and after every end.
 *
 * <p>The file names the incarnation that wrote it. An incarnation never overwrites the progress of a
 * later one ({@link Superseded}): a job master that was frozen, declared lost and started again
 * elsewhere must not, when it thaws, write its older view over its successor's (the successor would
 * run again what it finished meanwhile).
 */
final class Progress {

    static final String NAME = "progress.checkpoint";
    static final String MAGIC = "granary-job-master-progress";
    static final int FORMAT = 1;
    private static final Set<String> FIELDS = Set.of("job", "tasks", "services", "incarnation");

    /** A later incarnation writes the progress: this one must stop. */
    static final class Superseded extends Exception {
        Superseded(String message) {
            super(message);
        }
    }
    private static final Set<String> ENTRY = Set.of("state", "attempts", "runs", "node");

    /** What the file held: the boards' entries (null if there was none or it was damaged). */
    record State(String job, List<TaskBoard.Entry> tasks, List<TaskBoard.Entry> services, long incarnation) {
    }

    /** What {@link #load} found. */
    record Loaded(State state, String damage, String movedTo) {
    }

    private final Sealed sealed;

    Progress(Disk disk) {
        this.sealed = new Sealed(disk, NAME, MAGIC, FORMAT);
    }

    String where() {
        return sealed.where();
    }

    Loaded load(long nowMillis) throws IOException {
        State[] s = new State[1];
        Sealed.Loaded l = sealed.load(nowMillis, body -> s[0] = parse(body));
        return new Loaded(l.damage() == null ? s[0] : null, l.damage(), l.movedTo());
    }

    void store(String job, long incarnation, TaskBoard tasks, TaskBoard services) throws IOException, Superseded {
        long writer = writer();
        if (writer > incarnation) {
            throw new Superseded("incarnation " + writer + " of this job master writes " + where() + " now; this one ("
                    + incarnation + ") is older and stops");
        }
        JsonObject o = JsonObject.builder().put("job", job).put("incarnation", incarnation).put("tasks", entries(tasks))
                .put("services", entries(services)).build();
        sealed.store(JsonWriter.write(o).getBytes(StandardCharsets.UTF_8));
    }

    /** The incarnation that wrote the file now, or 0 (none, or it does not read). */
    private long writer() throws IOException {
        try {
            byte[] body = sealed.read();
            return body == null ? 0 : parse(body).incarnation();
        } catch (Sealed.Damaged ex) {
            return 0;
        }
    }

    private static JsonArray entries(TaskBoard b) {
        List<JsonValue> out = new ArrayList<>();
        for (TaskBoard.Entry e : b.entries()) {
            JsonObject.Builder o = JsonObject.builder().put("state", e.state().name().toLowerCase(Locale.ROOT))
                    .put("attempts", e.attempts()).put("runs", e.runs());
            if (e.node() != null) {
                o.put("node", e.node());
            }
            out.add(o.build());
        }
        return new JsonArray(out, JsonPosition.NONE);
    }

    private State parse(byte[] body) throws Sealed.Damaged {
        try {
            Json json = new Json(sealed.where());
            JsonObject o = json.object(JsonReader.read(body, sealed.where(), JsonLimits.DEFAULT), "$");
            json.throwIfProblems();
            json.onlyKnown(o, "$", FIELDS);
            String job = json.string(o, "job", "$", null);
            List<TaskBoard.Entry> tasks = board(json, o, "tasks");
            List<TaskBoard.Entry> services = board(json, o, "services");
            long incarnation = o.get("incarnation") == null ? 0 : json.integer(o, "incarnation", "$", 0L);
            json.throwIfProblems();
            return new State(job, tasks, services, incarnation);
        } catch (InvalidRequestException ex) {
            throw Sealed.damaged("the checksum matches but the body does not read: " + ex.getMessage());
        }
    }

    private static List<TaskBoard.Entry> board(Json json, JsonObject o, String name) {
        List<TaskBoard.Entry> out = new ArrayList<>();
        JsonValue v = json.field(o, name, "$", true);
        JsonArray a = v == null ? null : json.array(v, "$." + name);
        for (int i = 0; a != null && i < a.size(); i++) {
            String at = "$." + name + "[" + i + "]";
            JsonObject x = json.object(a.get(i), at);
            if (x == null) {
                continue;
            }
            json.onlyKnown(x, at, ENTRY);
            String state = json.string(x, "state", at, null);
            int attempts = json.int32(x, "attempts", at, null);
            int runs = json.int32(x, "runs", at, null);
            String node = x.get("node") == null ? null : json.string(x, "node", at, null);
            TaskBoard.State s = null;
            try {
                s = state == null ? null : TaskBoard.State.valueOf(state.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException ex) {
                json.problem(x.get("state"), at + ".state", "expected waiting, running, succeeded or failed, got " + state);
            }
            if (s == TaskBoard.State.RUNNING && node == null) {
                json.problem(x, at + ".node", "a running entry names its node");
            }
            if (s != null) {
                out.add(new TaskBoard.Entry(s, attempts, runs, node, -1));
            }
        }
        return out;
    }
}
