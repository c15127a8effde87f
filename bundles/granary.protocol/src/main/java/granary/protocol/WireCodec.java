package granary.protocol;

import granary.api.model.Problem;
import granary.codec.json.Json;
import granary.codec.json.JsonLimits;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPath;
import granary.codec.json.JsonReader;
import granary.codec.json.JsonSyntaxException;
import granary.codec.json.JsonValue;
import granary.codec.json.JsonWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Envelopes as strict JSON, both ways. An envelope is one object:
 *
 * <pre>
 * {"version": 1, "sender": {"role": "agent", "id": "n7"}, "incarnation": 1700000000000,
 *  "sequence": 42, "type": "heartbeat", "message": {...}}
 * </pre>
 *
 * <p>Reading goes through {@link JsonReader}, the strict reader every input of Granary takes (files,
 * the HTTP API, the wire), so a malformed message is refused in the same words as a malformed file;
 * writing is the codec's compact {@link JsonWriter} (no whitespace; control, bidi and line-separator
 * characters escaped), straight into one builder: the master writes an envelope for every ack, cap
 * and hint on its loop.
 *
 * <p>Reading refuses, with a {@link ProtocolException} whose problems name the source (the peer)
 * and the JSON path: a message over {@value #MAX_MESSAGE_BYTES} bytes (checked before parsing),
 * anything that is not strict JSON (truncated JSON, comments, single quotes, {@code NaN}), bad UTF-8,
 * content after the document, a key given twice, nesting deeper than 32, a string over 65,536
 * characters or a number over 40, a version other than
 * {@value #VERSION} (checked before the rest, since another version may have other fields), unknown
 * fields, wrong types, missing fields, negative counts and a sequence number below 1. Every problem
 * found is reported, not only the first.
 *
 * <p>Writing refuses an envelope that would be over the limit, so that a peer is never sent what it
 * must refuse. An instance knows the role of its side, which refusals name.
 */
public final class WireCodec {

    /**
     * The newest protocol version this code speaks. Version 3 added a full request's {@code restart}
     * and a cap grant's {@code launch}; version 4 a hint's {@code nodes} and {@code through}, a
     * request's {@code mark}, node epochs, probes, a heartbeat's {@code uncapped} and a cap's {@code reason}; version 5 a hint's {@code passes}; version 6 a heartbeat's {@code usage} and {@code health} and an exit's {@code oom} (docs/protocol.md, "Versioning"; docs/agent.md). A message is sent
     * as the lowest version that carries it, so a peer of this version talks to an older master as
     * long as it does not need what came later.
     */
    public static final int VERSION = 6;

    /** The oldest protocol version this code reads. */
    public static final int OLDEST = 2;

    /**
     * The lowest version that carries {@code m}: 6 for a heartbeat's usage or health and an exit's {@code oom}; 5 for plan passes; 4 for node states, epochs, probes, marks, an exit's
     * {@code stopped}, uncapped workers or a cap's reason; 3 for a restart spec or a launch; else 2.
     */
    public static int versionFor(Message m) {
        if (m instanceof Heartbeat b && (b.usage() != null || b.health() != null || b.exited().stream().anyMatch(x -> x.oom() != null))
                || m instanceof Hint h && h.exits().stream().anyMatch(x -> x.oom() != null)) {
            return 6;
        }
        if (m instanceof Hint h && !h.passes().isEmpty()) {
            return 5;
        }
        boolean v4 = m instanceof Hint h && (!h.nodes().isEmpty() || h.through() > 0 || h.placements().stream().anyMatch(p -> p.epoch() > 0))
                || m instanceof Request q && q.mark() > 0
                || m instanceof Heartbeat e && e.exited().stream().anyMatch(x -> x.stopped() != (x.exitCode() == Heartbeat.STOPPED))
                || m instanceof Hint t && t.exits().stream().anyMatch(x -> x.stopped() != (x.exitCode() == Heartbeat.STOPPED))
                || m instanceof Heartbeat b && !b.uncapped().isEmpty()
                || m instanceof Cap c && c.reason() != null
                || m instanceof Register r && r.epoch() > 0
                || m instanceof Plan p && p.launches().stream().anyMatch(l -> l.epoch() > 0 || l.probe());
        if (v4) {
            return 4;
        }
        boolean v3 = m instanceof Request r && r.restart() != null
                || m instanceof Cap c && (launches(c.grants()) || launches(c.withdrawals()))
                || m instanceof Register r && launches(r.caps());
        return v3 ? 3 : OLDEST;
    }

    /** What protocol version {@code v} added, in words (refusals name it). */
    private static String addedIn(int v) {
        return switch (v) {
            case 6 -> "a heartbeat's usage or health, or an exit's oom";
            case 5 -> "plan passes";
            case 4 -> "node states, epochs, probes, marks, a stopped exit, uncapped workers or a cap's reason";
            default -> "a restart spec or a launch";
        };
    }

    private static boolean launches(List<Cap.Grant> grants) {
        for (Cap.Grant g : grants) {
            if (g.launch() != null) {
                return true;
            }
        }
        return false;
    }

    /**
     * The largest envelope in bytes of UTF-8 (1 MiB). Large enough for a full {@link Request} of some
     * thousand jobs; a job master with more sends several requests.
     */
    public static final int MAX_MESSAGE_BYTES = 1 << 20;

    private static final JsonLimits LIMITS = new JsonLimits(MAX_MESSAGE_BYTES, 32, 65_536, 40);
    private static final Set<String> ENVELOPE_FIELDS = Set.of("version", "sender", "incarnation", "sequence", "type", "message");
    private static final Set<String> SENDER_FIELDS = Set.of("role", "id");

    private final Role self;

    /** @param self the role of this side, named in refusals ("this master speaks 1") */
    public WireCodec(Role self) {
        this.self = Objects.requireNonNull(self, "self");
    }

    /** The envelope as UTF-8 JSON. @throws ProtocolException if it is over {@link #MAX_MESSAGE_BYTES} */
    public byte[] encode(Envelope e) {
        byte[] bytes = text(e).getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_MESSAGE_BYTES) {
            throw tooLarge("outgoing " + e.message().type() + " " + e.sequence() + " to be sent by " + e.sender(), bytes.length);
        }
        return bytes;
    }

    /** The envelope as compact JSON text, as it travels (no size check). */
    public String text(Envelope e) {
        JsonObject o = JsonObject.builder()
                .put("version", e.version())
                .put("sender", JsonObject.builder().put("role", e.sender().role().wire()).put("id", e.sender().id()).build())
                .put("incarnation", e.incarnation())
                .put("sequence", e.sequence())
                .put("type", e.message().type())
                .put("message", MessageWriter.write(e.message()))
                .build();
        return JsonWriter.compact(o);
    }

    /**
     * Reads one envelope.
     *
     * @param source names the peer or connection in every problem, e.g. {@code agent n7 at 10.0.0.7:4711}
     * @throws ProtocolException naming every problem found
     */
    public Envelope decode(byte[] bytes, String source) {
        if (bytes.length > MAX_MESSAGE_BYTES) {
            throw tooLarge(source, bytes.length);
        }
        JsonValue doc;
        try {
            doc = JsonReader.read(JsonReader.utf8(bytes, source, ""), source, LIMITS);
        } catch (JsonSyntaxException ex) {
            throw new ProtocolException(List.of(ex.problem().toProblem()));
        }
        Json json = new Json(source);
        JsonObject o = json.object(doc, JsonPath.ROOT);
        check(json);
        int version = json.int32(o, "version", JsonPath.ROOT, null);
        check(json);
        if (version < OLDEST || version > VERSION) {
            throw new ProtocolException(List.of(Problem.of(source, "$.version", "protocol version " + version
                    + " is not supported; this " + self.wire() + " speaks " + OLDEST + " to " + VERSION, VERSION, version)));
        }
        json.onlyKnown(o, JsonPath.ROOT, ENVELOPE_FIELDS);
        Sender sender = sender(json, o);
        long incarnation = json.integer(o, "incarnation", JsonPath.ROOT, null);
        long sequence = json.integer(o, "sequence", JsonPath.ROOT, null);
        Message message = message(json, o);
        if (message != null && versionFor(message) > version) {
            json.problem(o.get("message"), "$.message", "carries " + addedIn(versionFor(message)) + ", which protocol version "
                    + versionFor(message) + " added; the envelope says version " + version);
        }
        long least = message instanceof Ack ? 0 : 1;
        if (json.field(o, "sequence", JsonPath.ROOT, false) != null && sequence < least) {
            json.problem(o.get("sequence"), "$.sequence", "must be at least " + least + ", got " + sequence);
        }
        check(json);
        return new Envelope(version, sender, incarnation, sequence, message);
    }

    private static Sender sender(Json json, JsonObject o) {
        JsonValue e = json.field(o, "sender", JsonPath.ROOT, true);
        JsonObject s = e == null ? null : json.object(e, "$.sender");
        if (s == null) {
            return null;
        }
        json.onlyKnown(s, "$.sender", SENDER_FIELDS);
        String roleText = json.string(s, "role", "$.sender", null);
        String id = json.string(s, "id", "$.sender", null);
        Role role = Role.ofWire(roleText);
        if (roleText != null && role == null) {
            json.problem(s.get("role"), "$.sender.role", "expected one of " + wireRoles() + ", got " + Json.kind(s.get("role")));
        }
        return role == null || id == null ? null : new Sender(role, id);
    }

    private static Message message(Json json, JsonObject o) {
        String type = json.string(o, "type", JsonPath.ROOT, null);
        JsonValue body = json.field(o, "message", JsonPath.ROOT, true);
        if (type == null) {
            return null;
        }
        if (!Message.TYPES.contains(type)) {
            json.problem(o.get("type"), "$.type", "expected one of " + String.join(", ", Message.TYPES)
                    + ", got " + Json.kind(o.get("type")));
            return null;
        }
        return body == null ? null : new MessageReader(json).read(type, body, "$.message");
    }

    private static String wireRoles() {
        List<String> out = new ArrayList<>();
        for (Role r : Role.values()) {
            out.add(r.wire());
        }
        return String.join(", ", out);
    }

    private static ProtocolException tooLarge(String source, long size) {
        return new ProtocolException(List.of(Problem.of(source, JsonPath.ROOT, "the message is " + size
                + " bytes, larger than the limit of " + MAX_MESSAGE_BYTES + " bytes", MAX_MESSAGE_BYTES, size)));
    }

    private static void check(Json json) {
        if (json.ok()) {
            return;
        }
        List<Problem> out = new ArrayList<>();
        json.problems().forEach(p -> out.add(p.toProblem()));
        if (json.count() > out.size()) {
            out.add(Problem.of(json.source(), JsonPath.ROOT, (json.count() - out.size()) + " more problems not shown"));
        }
        throw new ProtocolException(out);
    }
}
