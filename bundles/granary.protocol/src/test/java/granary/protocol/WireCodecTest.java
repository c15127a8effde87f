package granary.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class WireCodecTest {

    private final WireCodec codec = new WireCodec(Role.MASTER);

    static Stream<Message> messages() {
        return Samples.all().stream();
    }

    @ParameterizedTest
    @MethodSource("messages")
    void everyMessageTypeRoundTrips(Message m) {
        Envelope e = Envelope.of(Samples.AGENT, 1_700_000_000_000L, 42, m);
        Envelope back = codec.decode(codec.encode(e), "test");
        assertEquals(e, back);
        assertEquals(codec.text(e), codec.text(back));
    }

    @Test
    void everyMessageTypeHasASample() {
        assertEquals(Message.TYPES, Samples.all().stream().map(Message::type).distinct().toList());
    }

    private static String envelope(String type, String message) {
        return "{\"version\": 1, \"sender\": {\"role\": \"agent\", \"id\": \"n7\"}, \"incarnation\": 5, \"sequence\": 3,"
                + " \"type\": \"" + type + "\", \"message\": " + message + "}";
    }

    private static final String HINT = "{\"placements\": [{\"unit\": \"j/u\", \"node\": \"n1\", \"slots\": 2,"
            + " \"endpoint\": \"http://127.0.0.1:7071\"}], \"exits\": []}";

    /** Input, then the path and the words of the first problem. */
    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("unknown field in the envelope", envelope("hint", HINT).replace("\"sequence\"", "\"colour\": 1, \"sequence\""),
                        "$.colour", "unknown field; known fields: incarnation, message, sender, sequence, type, version"),
                Arguments.of("unknown field in a message", envelope("hint", HINT.replace("\"slots\": 2", "\"slots\": 2, \"slot\": 1")),
                        "$.message.placements[0].slot", "unknown field; known fields: endpoint, node, slots, unit"),
                Arguments.of("wrong type", envelope("hint", HINT.replace("\"slots\": 2", "\"slots\": \"2\"")),
                        "$.message.placements[0].slots", "expected a whole number, got the string \"2\""),
                Arguments.of("wrong type of the sequence", envelope("hint", HINT).replace("\"sequence\": 3", "\"sequence\": 3.5"),
                        "$.sequence", "expected a whole number, got 3.5"),
                Arguments.of("missing field", envelope("hint", HINT.replace("\"node\": \"n1\", ", "")),
                        "$.message.placements[0].node", "is missing"),
                Arguments.of("missing message", envelope("hint", "null"),
                        "$.message", "is missing"),
                Arguments.of("unknown type", envelope("hello", HINT),
                        "$.type", "expected one of register, heartbeat, request, hint, cap, plan, ack, got the string \"hello\""),
                Arguments.of("unknown role", envelope("hint", HINT).replace("\"agent\"", "\"robot\""),
                        "$.sender.role", "expected one of agent, job-master, master, got the string \"robot\""),
                Arguments.of("negative count", envelope("hint", HINT.replace("\"slots\": 2", "\"slots\": -2")),
                        "$.message.placements[0].slots", "must not be negative, got -2"),
                Arguments.of("bad unit id", envelope("hint", HINT.replace("j/u", "ju")),
                        "$.message.placements[0].unit", "expected job/unit, got the string \"ju\""),
                Arguments.of("sequence 0", envelope("hint", HINT).replace("\"sequence\": 3", "\"sequence\": 0"),
                        "$.sequence", "must be at least 1, got 0"),
                Arguments.of("bad version", envelope("hint", HINT).replace("\"version\": 1", "\"version\": 3"),
                        "$.version", "protocol version 3 is not supported; this master speaks 1"),
                Arguments.of("bad version with fields of its own", envelope("hint", "{\"new\": true}")
                        .replace("\"version\": 1", "\"version\": 2, \"extra\": 1"),
                        "$.version", "protocol version 2 is not supported; this master speaks 1"),
                Arguments.of("missing version", envelope("hint", HINT).replace("\"version\": 1,", ""),
                        "$.version", "is missing"),
                Arguments.of("truncated JSON", envelope("hint", HINT).substring(0, envelope("hint", HINT).length() - 2),
                        "$.message", "not valid JSON: the document ends inside an object"),
                Arguments.of("not an object", "[1, 2]",
                        "$", "expected an object, got an array"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void malformedMessagesAreRefusedNamingThePath(String name, String input, String path, String message) {
        ProtocolException ex = assertThrows(ProtocolException.class,
                () -> codec.decode(input.getBytes(StandardCharsets.UTF_8), "agent n7"));
        Problem first = ex.problems().get(0);
        assertEquals(path, first.field(), ex.getMessage());
        assertEquals(message, first.message(), ex.getMessage());
        assertTrue(first.subject().startsWith("agent n7"), first.subject());
        assertTrue(ex instanceof InvalidRequestException);
    }

    @Test
    void aMessageOverTheLimitIsRefusedBeforeParsing() {
        byte[] big = new byte[WireCodec.MAX_MESSAGE_BYTES + 1]; // not JSON at all: never parsed
        ProtocolException ex = assertThrows(ProtocolException.class, () -> codec.decode(big, "agent n7"));
        Problem p = ex.problems().get(0);
        assertEquals("the message is 1048577 bytes, larger than the limit of 1048576 bytes", p.message());
        assertEquals(1_048_576L, p.limit());
        assertEquals(1_048_577L, p.value());
    }

    @Test
    void anOutgoingMessageOverTheLimitIsNotSent() {
        Plan huge = new Plan(java.util.List.of(new Plan.Launch(Samples.MAP, 0,
                java.util.Collections.nCopies(20_000, "argument-of-sixty-characters-" + "x".repeat(30)),
                java.util.Map.of(), "/")));
        ProtocolException ex = assertThrows(ProtocolException.class,
                () -> codec.encode(Envelope.of(Samples.JOB_MASTER, 1, 1, huge)));
        assertTrue(ex.getMessage().contains("larger than the limit of 1048576 bytes"), ex.getMessage());
    }

    @Test
    void badVersionKeepsBothVersionsAsFields() {
        String input = envelope("hint", HINT).replace("\"version\": 1", "\"version\": 3");
        Problem p = assertThrows(ProtocolException.class,
                () -> new WireCodec(Role.AGENT).decode(input.getBytes(StandardCharsets.UTF_8), "master m")).problems().get(0);
        assertEquals("protocol version 3 is not supported; this agent speaks 1", p.message());
        assertEquals(1L, p.limit());
        assertEquals(3L, p.value());
    }

    @Test
    void everyProblemIsReportedNotOnlyTheFirst() {
        String input = envelope("hint", "{\"placements\": [{\"unit\": 1, \"node\": 2, \"slots\": 3, \"endpoint\": \"e\"}],"
                + " \"exits\": [], \"more\": 0}");
        ProtocolException ex = assertThrows(ProtocolException.class,
                () -> codec.decode(input.getBytes(StandardCharsets.UTF_8), "agent n7"));
        assertEquals(3, ex.problems().size(), ex.getMessage());
    }

    @Test
    void truncatedJsonNamesLineAndColumn() {
        String whole = envelope("hint", HINT);
        byte[] cut = whole.substring(0, whole.length() - 2).getBytes(StandardCharsets.UTF_8);
        ProtocolException ex = assertThrows(ProtocolException.class, () -> codec.decode(cut, "agent n7"));
        assertEquals("agent n7:1:225: $.message: not valid JSON: the document ends inside an object", ex.getMessage());
    }
}
