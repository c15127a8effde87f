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
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * The agent's cap table on disk, so that a restarted agent holds its caps before the master
 * resends them, and so that a cap is on disk before the next inbox poll acknowledges it.
 *
 * <p>Format (version {@value #FORMAT}): one header line, then the body, a JSON object:
 * <pre>
 * granary-agent-checkpoint format=1 bytes=&lt;body length&gt; sha256=&lt;hex of the body&gt;
 * {"node":"n1","incarnation":1700000000000,"caps":[{"jobMaster":"jm1","unit":"j/u","slots":3,"key":"…"}]}
 * </pre>
 * The length finds a torn (truncated or extended) file, the hash a changed byte, the JSON reader
 * the rest. A file that fails any check is not loaded at all: {@link #recover} moves it aside to
 * {@code <name>.corrupt-<millis>} and the agent starts without caps (the master sends the full
 * set when the agent registers).
 *
 * <p>Writing: a temporary file in the same directory, forced to disk, renamed atomically over
 * the old one, then the directory forced where the platform allows it.
 */
final class Checkpoint {

    static final int FORMAT = 1;
    static final String MAGIC = "granary-agent-checkpoint";
    private static final Set<String> BODY_FIELDS = Set.of("node", "incarnation", "caps");
    private static final Set<String> GRANT_FIELDS = Set.of("jobMaster", "unit", "slots", "key", "size", "online", "launch");
    private static final Set<String> LAUNCH_FIELDS = Set.of("command", "environment", "workingDirectory");

    /** What a checkpoint held. */
    record State(String node, long incarnation, List<Cap.Grant> caps) {
        State {
            caps = List.copyOf(caps);
        }
    }

    /** What {@link #recover} found: the state (empty if none or corrupt), and for a corrupt file why and where it went. */
    record Recovery(State state, CheckpointException corrupt, Path movedTo) {
    }

    private final Path file;

    Checkpoint(Path file) {
        this.file = file;
    }

    Path file() {
        return file;
    }

    void write(State s) throws IOException {
        byte[] body = body(s).getBytes(StandardCharsets.UTF_8);
        byte[] header = (MAGIC + " format=" + FORMAT + " bytes=" + body.length + " sha256=" + sha256(body) + "\n")
                .getBytes(StandardCharsets.UTF_8);
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = dir.resolve(file.getFileName() + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.wrap(header));
            ch.write(ByteBuffer.wrap(body));
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory(dir);
    }

    /** Forces the rename to disk; some platforms cannot open a directory, where the rename is as durable as it gets. */
    private static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException | UnsupportedOperationException ex) {
            // not supported here (e.g. Windows): nothing more to do
        }
    }

    /**
     * Reads the checkpoint.
     *
     * @return the state, or null if there is no checkpoint
     * @throws CheckpointException naming the file and what is wrong with it
     * @throws IOException         if it exists but cannot be read
     */
    State read() throws IOException, CheckpointException {
        if (!Files.exists(file)) {
            return null;
        }
        byte[] all = Files.readAllBytes(file);
        int nl = indexOf(all, (byte) '\n');
        if (nl < 0) {
            throw corrupt("no header line (expected '" + MAGIC + " format=" + FORMAT + " bytes=N sha256=HEX'), "
                    + all.length + " bytes in all");
        }
        String[] h = new String(all, 0, nl, StandardCharsets.UTF_8).split(" ");
        if (h.length != 4 || !h[0].equals(MAGIC) || !h[1].startsWith("format=") || !h[2].startsWith("bytes=")
                || !h[3].startsWith("sha256=")) {
            throw corrupt("the header is not '" + MAGIC + " format=N bytes=N sha256=HEX'");
        }
        if (!h[1].equals("format=" + FORMAT)) {
            throw corrupt("checkpoint " + h[1] + " is not supported; this agent reads format=" + FORMAT);
        }
        long declared = number(h[2].substring(6));
        int actual = all.length - nl - 1;
        if (declared != actual) {
            throw corrupt("torn: the header declares " + declared + " bytes of body, the file holds " + actual);
        }
        byte[] body = new byte[actual];
        System.arraycopy(all, nl + 1, body, 0, actual);
        String sum = sha256(body);
        if (!CapTable.sameKey(sum, h[3].substring(7))) {
            throw corrupt("checksum mismatch: the header says sha256=" + h[3].substring(7) + ", the body hashes to " + sum);
        }
        return parse(body);
    }

    /** Reads the checkpoint; a corrupt one is moved aside and reported, never half-loaded. */
    Recovery recover(long nowMillis) throws IOException {
        try {
            State s = read();
            return new Recovery(s, null, null);
        } catch (CheckpointException ex) {
            Path aside = file.resolveSibling(file.getFileName() + ".corrupt-" + nowMillis);
            Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
            return new Recovery(null, ex, aside);
        }
    }

    private State parse(byte[] body) throws CheckpointException {
        try {
            JsonValue doc = JsonReader.read(body, file.toString(), JsonLimits.DEFAULT);
            Json json = new Json(file.toString());
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
            return new State(node, incarnation, caps);
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
        return JsonWriter.write(JsonObject.builder().put("node", s.node()).put("incarnation", s.incarnation())
                .put("caps", new JsonArray(caps, JsonPosition.NONE)).build());
    }

    private CheckpointException corrupt(String problem) {
        return new CheckpointException(file, problem);
    }

    private long number(String text) throws CheckpointException {
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException ex) {
            throw corrupt("the header's byte count '" + text + "' is not a whole number");
        }
    }

    private static int indexOf(byte[] b, byte x) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] == x) {
                return i;
            }
        }
        return -1;
    }

    static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", ex);
        }
    }
}
