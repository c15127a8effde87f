package granary.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;
import granary.codec.json.JsonLimits;
import granary.codec.json.JsonSyntaxException;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.codec.json.JsonReader;
import granary.codec.json.JsonWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
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

    /**
     * Every UTF-16 unit a string may hold goes out escaped where JSON or a reader's terminal needs it
     * (control, bidi and line-separator characters) and comes back the same.
     */
    @Test
    void everyCharacterOfAStringRoundTripsAndNoControlCharacterTravelsRaw() {
        StringBuilder all = new StringBuilder();
        for (char c = 1; c < 0xd800; c++) {
            all.append(c);
        }
        all.append("\ud83d\ude00"); // a surrogate pair
        Ack refusal = Ack.refused(7, java.util.List.of(granary.api.model.Problem.of("n7", "$.x", all.toString())));
        Envelope e = Envelope.of(Samples.AGENT, 1_700_000_000_000L, 42, refusal);
        String text = codec.text(e);
        assertTrue(text.chars().noneMatch(c -> c < 0x20 || c == 0x7f || c == 0x2028 || c == 0x2029 || c >= 0x202a && c <= 0x202e),
                "raw control characters on the wire");
        assertEquals(e, codec.decode(codec.encode(e), "test"));
    }

    @Test
    void everyMessageTypeHasASample() {
        assertEquals(Message.TYPES, Samples.all().stream().map(Message::type).distinct().toList());
    }

    private static String envelope(String type, String message) {
        return "{\"version\": 2, \"sender\": {\"role\": \"agent\", \"id\": \"n7\"}, \"incarnation\": 5, \"sequence\": 3,"
                + " \"type\": \"" + type + "\", \"message\": " + message + "}";
    }

    private static String envelope3(String type, String message) {
        return envelope(type, message).replace("\"version\": 2", "\"version\": 3");
    }

    private static final String RESTART = "{\"command\": [\"jm\", \"-x\"], \"environment\": {\"A\": \"b\"},"
            + " \"workingDirectory\": \"\", \"size\": {\"cpu\": 100, \"mem\": 256}, \"node\": \"n1\"}";

    private static String request(boolean full, String restart) {
        return "{\"full\": " + full + ", \"jobs\": [], \"desires\": [], \"cancels\": [], \"releases\": [],"
                + " \"holdings\": [], \"restart\": " + restart + "}";
    }

    private static final String HINT = "{\"placements\": [{\"unit\": \"j/u\", \"node\": \"n1\", \"slots\": 2,"
            + " \"endpoint\": \"http://127.0.0.1:7071\"}], \"exits\": []}";

    /** Input, then the path and the words of the first problem. */
    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("unknown field in the envelope", envelope("hint", HINT).replace("\"sequence\"", "\"colour\": 1, \"sequence\""),
                        "$.colour", "unknown field; known fields: incarnation, message, sender, sequence, type, version"),
                Arguments.of("unknown field in a message", envelope("hint", HINT.replace("\"slots\": 2", "\"slots\": 2, \"slot\": 1")),
                        "$.message.placements[0].slot", "unknown field; known fields: endpoint, epoch, node, slots, unit"),
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
                Arguments.of("bad version", envelope("hint", HINT).replace("\"version\": 2", "\"version\": 8"),
                        "$.version", "protocol version 8 is not supported; this master speaks 2 to 7"),
                Arguments.of("bad version with fields of its own", envelope("hint", "{\"new\": true}")
                        .replace("\"version\": 2", "\"version\": 1, \"extra\": 1"),
                        "$.version", "protocol version 1 is not supported; this master speaks 2 to 7"),
                Arguments.of("missing version", envelope("hint", HINT).replace("\"version\": 2,", ""),
                        "$.version", "is missing"),
                Arguments.of("truncated JSON", envelope("hint", HINT).substring(0, envelope("hint", HINT).length() - 2),
                        "$.message", "not valid JSON: the document ends inside an object"),
                Arguments.of("restart in a delta", envelope3("request", request(false, RESTART)),
                        "$.message.restart", "only a full request carries a restart spec; a delta has none"),
                Arguments.of("restart with an empty command", envelope3("request", request(true, RESTART.replace("[\"jm\", \"-x\"]", "[]"))),
                        "$.message.restart.command", "is empty; expected the program and its arguments"),
                Arguments.of("restart with an empty program name", envelope3("request", request(true, RESTART.replace("\"jm\"", "\"\""))),
                        "$.message.restart.command[0]", "the program's name is empty"),
                Arguments.of("restart with a zero size", envelope3("request", request(true, RESTART.replace("\"cpu\": 100, \"mem\": 256", "\"cpu\": 0"))),
                        "$.message.restart.size", "must ask for some resource, got cpu=0,mem=0"),
                Arguments.of("restart with a negative size", envelope3("request", request(true, RESTART.replace("\"cpu\": 100", "\"cpu\": -1"))),
                        "$.message.restart.size.cpu", "must not be negative, got -1"),
                Arguments.of("restart with a size beyond the limit", envelope3("request", request(true, RESTART.replace("\"cpu\": 100", "\"cpu\": 9223372036854775807"))),
                        "$.message.restart.size.cpu", "must be at most " + granary.api.model.Resources.MAX_AMOUNT + ", got 9223372036854775807"),
                Arguments.of("restart without a size", envelope3("request", request(true, RESTART.replace(", \"size\": {\"cpu\": 100, \"mem\": 256}", ""))),
                        "$.message.restart.size", "is missing"),
                Arguments.of("restart on a bad node name", envelope3("request", request(true, RESTART.replace("\"n1\"", "\"n 1\""))),
                        "$.message.restart.node", "'n 1' is not a node name: " + granary.api.model.Names.RULE),
                Arguments.of("restart with an unknown field", envelope3("request", request(true, RESTART.replace("\"node\"", "\"shell\": true, \"node\""))),
                        "$.message.restart.shell", "unknown field; known fields: command, environment, node, size, workingDirectory"),
                Arguments.of("restart in a version 2 envelope", envelope("request", request(true, RESTART)),
                        "$.message", "carries a restart spec or a launch, which protocol version 3 added; the envelope says version 2"),
                Arguments.of("launch with an empty command", envelope3("cap", "{\"grants\": [{\"jobMaster\": \"granary.master\", \"unit\": \"r/u\","
                        + " \"slots\": 1, \"key\": \"k\", \"size\": {\"cpu\": 1}, \"online\": true, \"launch\": {\"command\": [],"
                        + " \"environment\": {}, \"workingDirectory\": \"\"}}], \"withdrawals\": [], \"full\": false}"),
                        "$.message.grants[0].launch.command", "is empty; expected the program and its arguments"),
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
    void aMessageWithoutARestartOrLaunchIsStillSentAsVersion2() {
        assertEquals(2, Envelope.of(Samples.AGENT, 1, 1, new Heartbeat(java.util.List.of(), java.util.List.of(), null)).version());
        Message restartable = Samples.all().stream().filter(m -> m instanceof Request r && r.restart() != null).findFirst().orElseThrow();
        Envelope e = Envelope.of(Samples.JOB_MASTER, 1, 1, restartable);
        assertEquals(3, e.version());
        assertTrue(codec.text(e).startsWith("{\"version\":3,"), codec.text(e));
        Message nodes = Samples.all().stream().filter(m -> m instanceof Hint h && !h.nodes().isEmpty()).findFirst().orElseThrow();
        assertEquals(4, Envelope.of(Samples.AGENT, 1, 1, nodes).version());
    }

    /** What version 4 added is refused in an envelope that says an older version: a reader of that version would not know it. */
    @Test
    void versionFourFieldsInAVersionThreeEnvelopeAreRefused() {
        String input = envelope("hint", "{\"placements\": [], \"exits\": [], \"nodes\": [{\"node\": \"n1\", \"state\": \"lost\"}]}")
                .replace("\"version\": 2", "\"version\": 3");
        ProtocolException ex = assertThrows(ProtocolException.class,
                () -> new WireCodec(Role.JOB_MASTER).decode(input.getBytes(StandardCharsets.UTF_8), "master m"));
        assertTrue(ex.problems().get(0).message().contains("which protocol version 4 added"), ex.getMessage());
        String badState = envelope("hint", "{\"placements\": [], \"exits\": [], \"nodes\": [{\"node\": \"n1\", \"state\": \"gone\"}]}")
                .replace("\"version\": 2", "\"version\": 4");
        ProtocolException bad = assertThrows(ProtocolException.class,
                () -> new WireCodec(Role.JOB_MASTER).decode(badState.getBytes(StandardCharsets.UTF_8), "master m"));
        assertTrue(bad.problems().get(0).message().contains("expected \"lost\" or \"back\", got \"gone\""), bad.getMessage());
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
        String input = envelope("hint", HINT).replace("\"version\": 2", "\"version\": 8");
        Problem p = assertThrows(ProtocolException.class,
                () -> new WireCodec(Role.AGENT).decode(input.getBytes(StandardCharsets.UTF_8), "master m")).problems().get(0);
        assertEquals("protocol version 8 is not supported; this agent speaks 2 to 7", p.message());
        assertEquals(7L, p.limit());
        assertEquals(8L, p.value());
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

    // The JSON syntax layer is the codec's strict reader, the one files and the API take too; these pin what it refuses
    // on the wire and in which words (JsonReaderTest pins the rest, and sameWordsAsAFile that the words are the same).

    private static final String OK = envelope("hint", HINT);

    /** Input, then the path and the whole message of the one problem. */
    static Stream<Arguments> notJson() {
        return Stream.of(
                Arguments.of("empty body", "", "$", "not valid JSON: the document is empty; expected a value"),
                Arguments.of("only spaces", "   ", "$", "not valid JSON: the document is empty; expected a value"),
                Arguments.of("a key given twice", OK.replace("\"sequence\": 3", "\"sequence\": 3, \"sequence\": 4"),
                        "$.sequence", "key 'sequence' is given twice in the same object"),
                Arguments.of("a key given twice deeper", envelope("hint", HINT.replace("\"slots\": 2", "\"slots\": 2, \"slots\": 2")),
                        "$.message.placements[0].slots", "key 'slots' is given twice in the same object"),
                Arguments.of("trailing garbage", OK + " x", "$", "not valid JSON: unexpected content after the JSON document"),
                Arguments.of("a second document", OK + OK, "$", "not valid JSON: unexpected content after the JSON document"),
                Arguments.of("trailing brace", OK + "}", "$", "not valid JSON: unexpected content after the JSON document"),
                Arguments.of("nesting too deep", envelope("hint", "[".repeat(40) + "]".repeat(40)),
                        "$.message" + "[0]".repeat(31), "not valid JSON: nested deeper than the limit of 32 levels"),
                Arguments.of("a string over the limit", envelope("h".repeat(70_000), HINT),
                        "$.type", "not valid JSON: a string is longer than the limit of 65536 characters"),
                Arguments.of("a key over the limit", OK.replace("\"sequence\": 3", "\"" + "k".repeat(65_537) + "\": 3"),
                        "$", "not valid JSON: a string is longer than the limit of 65536 characters"),
                Arguments.of("a number over the limit", OK.replace("\"sequence\": 3", "\"sequence\": " + "9".repeat(50)),
                        "$.sequence", "not valid JSON: a number is longer than the limit of 40 characters"),
                Arguments.of("a number over Gson's buffer", OK.replace("\"sequence\": 3", "\"sequence\": " + "9".repeat(5_000)),
                        "$.sequence", "not valid JSON: a number is longer than the limit of 40 characters"),
                Arguments.of("NaN", OK.replace("\"sequence\": 3", "\"sequence\": NaN"),
                        "$.sequence", "not valid JSON: 'NaN' is not a JSON value (JSON has no NaN or Infinity)"),
                Arguments.of("Infinity", OK.replace("\"sequence\": 3", "\"sequence\": Infinity"),
                        "$.sequence", "not valid JSON: 'Infinity' is not a JSON value (JSON has no NaN or Infinity)"),
                Arguments.of("-Infinity", OK.replace("\"sequence\": 3", "\"sequence\": -Infinity"),
                        "$.sequence", "not valid JSON: '-Infinity' is not a JSON value (JSON has no NaN or Infinity)"),
                Arguments.of("a leading zero", OK.replace("\"sequence\": 3", "\"sequence\": 03"),
                        "$.sequence", "not valid JSON: a number must not start with 0 (leading zeros are not allowed)"),
                Arguments.of("a plus sign", OK.replace("\"sequence\": 3", "\"sequence\": +3"),
                        "$.sequence", "not valid JSON: a number must not start with '+'"),
                Arguments.of("a single-quoted value", OK.replace("\"hint\"", "'hint'"),
                        "$.type", "not valid JSON: strings need double quotes, not single quotes"),
                Arguments.of("a single-quoted name", OK.replace("\"type\"", "'type'"),
                        "$", "not valid JSON: strings need double quotes, not single quotes"),
                Arguments.of("an unquoted name", OK.replace("\"type\"", "type"),
                        "$", "not valid JSON: expected a key in double quotes after ',' (no trailing commas)"),
                Arguments.of("an unquoted value", OK.replace("\"hint\"", "hint"),
                        "$.type", "not valid JSON: 'hint' is not a JSON value; strings need double quotes"),
                Arguments.of("a block comment", OK.replace("\"type\"", "/* the type */ \"type\""),
                        "$", "not valid JSON: comments are not allowed in JSON"),
                Arguments.of("a line comment", OK.replace("\"type\"", "// the type\n\"type\""),
                        "$", "not valid JSON: comments are not allowed in JSON"),
                Arguments.of("a hash comment", OK.replace("\"type\"", "# the type\n\"type\""),
                        "$", "not valid JSON: comments are not allowed in JSON"),
                Arguments.of("a trailing comma in an object", OK.substring(0, OK.length() - 1) + ",}",
                        "$", "not valid JSON: expected a key in double quotes after ',' (no trailing commas)"),
                Arguments.of("a trailing comma in an array", envelope("hint", HINT.replace("\"exits\": []", "\"exits\": [1,]")),
                        "$.message.exits", "not valid JSON: expected a value after ',' (no trailing commas)"),
                Arguments.of("a missing colon", OK.replace("\"type\": ", "\"type\" "),
                        "$.type", "not valid JSON: expected ':' after the key"),
                Arguments.of("a missing comma", OK.replace(", \"type\"", " \"type\""),
                        "$", "not valid JSON: expected ',' or '}'"),
                Arguments.of("a raw tab in a string", OK.replace("\"n7\"", "\"n\t7\""),
                        "$.sender.id", "not valid JSON: control character U+0009 in a string; write it as \\u0009"),
                Arguments.of("a bad escape", OK.replace("\"n7\"", "\"n\\x7\""),
                        "$.sender.id", "not valid JSON: bad escape '\\x'; use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX"),
                Arguments.of("an unterminated string", OK.substring(0, OK.indexOf("\"n7\"") + 2),
                        "$.sender.id", "not valid JSON: the document ends inside a string"),
                Arguments.of("the end inside an array", OK.substring(0, OK.indexOf("\"exits\": [") + 10),
                        "$.message.exits[0]", "not valid JSON: the document ends where a value was expected"),
                Arguments.of("the end after a key", OK.substring(0, OK.indexOf("\"type\":") + 7),
                        "$.type", "not valid JSON: the document ends where a value was expected"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("notJson")
    void whatIsNotStrictJsonIsRefusedNamingThePath(String name, String input, String path, String message) {
        ProtocolException ex = assertThrows(ProtocolException.class,
                () -> codec.decode(input.getBytes(StandardCharsets.UTF_8), "agent n7"));
        assertEquals(1, ex.problems().size(), ex.getMessage());
        Problem p = ex.problems().get(0);
        assertEquals(path, p.field(), ex.getMessage());
        assertEquals(message, p.message(), ex.getMessage());
        assertTrue(p.subject().startsWith("agent n7"), p.subject());
        // one strict path: a file (or an API body) with the same text is refused at the same place in the same words
        JsonSyntaxException file = assertThrows(JsonSyntaxException.class,
                () -> JsonReader.read(input, "input.json", new JsonLimits(64L << 20, 32, 65_536, 40)));
        assertEquals(p.field(), file.problem().path(), file.getMessage());
        assertEquals(p.message(), file.problem().message(), file.getMessage());
        assertEquals(p.subject().substring("agent n7".length()), file.problem().toProblem().subject().substring("input.json".length()),
                "the same line and column");
    }

    @Test
    void malformedUtf8IsRefusedWithItsByte() {
        byte[] bad = OK.replace("\"n7\"", "\"n7?\"").getBytes(StandardCharsets.UTF_8);
        int at = OK.indexOf("\"n7\"") + 3;
        bad[at] = (byte) 0xC3; // a lead byte followed by a quote: not UTF-8
        ProtocolException ex = assertThrows(ProtocolException.class, () -> codec.decode(bad, "agent n7"));
        assertEquals("agent n7:1:" + (at + 1) + ": $: not UTF-8 at byte " + at + " (0xC3)", ex.getMessage());
    }

    @Test
    void aByteOrderMarkIsSkipped() {
        Envelope e = Envelope.of(Samples.AGENT, 5, 3, Samples.all().get(0));
        byte[] withBom = ("\uFEFF" + codec.text(e)).getBytes(StandardCharsets.UTF_8);
        assertEquals(e, codec.decode(withBom, "test"));
    }

    @Test
    void syntaxErrorsNameTheLineAndColumnWhereTheyAre() {
        String twoLines = OK.replace(", \"type\"", ",\n\"type\"").replace("\"hint\"", "'hint'");
        ProtocolException ex = assertThrows(ProtocolException.class,
                () -> codec.decode(twoLines.getBytes(StandardCharsets.UTF_8), "agent n7"));
        assertEquals("agent n7:2:9: $.type: not valid JSON: strings need double quotes, not single quotes", ex.getMessage());
    }

    @ParameterizedTest
    @MethodSource("messages")
    void theWireFormIsCompactJsonThatGranarysOwnReaderReadsBack(Message m) {
        String wire = codec.text(Envelope.of(Samples.AGENT, 1_700_000_000_000L, 42, m));
        assertEquals(JsonWriter.compact(JsonReader.read(wire, "test")), wire);
        assertEquals(new String(codec.encode(Envelope.of(Samples.AGENT, 1_700_000_000_000L, 42, m)), StandardCharsets.UTF_8), wire);
    }

    @Test
    void stringsAreEscapedSoTheyComeBackTheSame() {
        String nasty = "a\"b\\c\n\t\u0000\u007f\u2028\u202e<>&='\uD83D\uDE00";
        Envelope e = Envelope.of(Samples.AGENT, 1, 1, new Register("n7", nasty, java.util.Map.of(nasty, nasty),
                granary.api.model.Resources.of(1, 1), "http://10.0.0.7:7071"));
        String wire = codec.text(e);
        assertTrue(wire.contains("\"a\\\"b\\\\c\\n\\t\\u0000"), wire);
        assertTrue(wire.contains("<>&='"), "not HTML-escaped: " + wire);
        assertEquals(e, codec.decode(codec.encode(e), "test"));
    }

    @Test
    void numbersKeepTheirText() {
        Envelope e = Envelope.of(Samples.AGENT, Long.MAX_VALUE, Long.MAX_VALUE, Ack.applied(Long.MAX_VALUE));
        assertEquals(e, codec.decode(codec.encode(e), "test"));
        assertTrue(codec.text(e).contains("\"incarnation\":9223372036854775807"), codec.text(e));
    }

    /** One message for each field protocol version 4 added (docs/protocol.md, "Versioning", "Plans", "Marks", "Exits"). */
    static Stream<Arguments> versionFour() {
        UnitId u = Samples.MAP;
        Plan.Launch launch = new Plan.Launch(u, 9, List.of("/bin/true"), Map.of(), "/tmp");
        return Stream.of(
                Arguments.of("a request's mark", new Request(false, List.of(), List.of(new Request.Desire(u, 2)), List.of(),
                        List.of(new Request.Release(u, "n3", 1))).withMark(7)),
                Arguments.of("a hint's through", new Hint(List.of(new Hint.Placement(u, "n7", 2, "http://10.0.0.7:7071")), List.of(),
                        List.of(), 7)),
                Arguments.of("a hint's exit stopped with code 0", new Hint(List.of(), List.of(new Hint.Exit(u, "n7", 3, 0, true)))),
                Arguments.of("a hint's exit of -15 not stopped", new Hint(List.of(), List.of(new Hint.Exit(u, "n7", 3, -15, false)))),
                Arguments.of("a heartbeat's exit stopped with code 0", new Heartbeat(List.of(),
                        List.of(new Heartbeat.Exit(u, 3, 0, true)), null)),
                Arguments.of("a heartbeat's exit of -15 not stopped", new Heartbeat(List.of(),
                        List.of(new Heartbeat.Exit(u, 3, -15, false)), null)),
                Arguments.of("a hint's nodes", new Hint(List.of(), List.of(), List.of(new Hint.NodeState("n3", Hint.NodeState.LOST),
                        new Hint.NodeState("n7", Hint.NodeState.BACK)))),
                Arguments.of("a registration's epoch", new Register("n3", "room-2", Map.of(), Resources.of(400, 8192),
                        "http://10.0.0.3:7071", List.of(), 1_700_000_000_123L)),
                Arguments.of("a launch's epoch", new Plan(List.of(launch.withEpoch(1_700_000_000_123L)))),
                Arguments.of("a probe", new Plan(List.of(launch.asProbe()))));
    }

    /**
     * Each field of version 4 survives a round trip; an envelope carrying one is sent as version 4
     * (and no higher: older peers still read what they can), and a version-3 envelope that carries
     * one is refused, since a reader of version 3 would misread it (docs/protocol.md, "Versioning").
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("versionFour")
    void eachVersionFourFieldRoundTripsIsSentAsVersion4AndIsRefusedInAVersion3Envelope(String name, Message m) {
        assertEquals(4, WireCodec.versionFor(m));
        Envelope e = Envelope.of(Samples.AGENT, 1_700_000_000_000L, 42, m);
        assertEquals(4, e.version());
        String text = codec.text(e);
        assertTrue(text.startsWith("{\"version\":4,"), text);
        assertEquals(e, codec.decode(codec.encode(e), "test"));

        String asThree = text.replace("{\"version\":4,", "{\"version\":3,");
        ProtocolException ex = assertThrows(ProtocolException.class,
                () -> codec.decode(asThree.getBytes(StandardCharsets.UTF_8), "agent n7"));
        assertEquals("$.message", ex.problems().get(0).field(), ex.getMessage());
        assertTrue(ex.problems().get(0).message().endsWith("which protocol version 4 added; the envelope says version 3"),
                ex.getMessage());
    }

    /** A hint's plan passes (version 5, docs/security.md "Plan passes") round-trip, go as version 5, and are refused in a version-4 envelope. */
    @Test
    void planPassesAreVersionFive() {
        Hint h = new Hint(List.of(new Hint.Placement(Samples.MAP, "n7", 2, "http://10.0.0.7:7071", 3)), List.of(), List.of(), 0,
                List.of(new Hint.Pass("n7", "gp1.abc.def")));
        assertEquals(5, WireCodec.versionFor(h));
        Envelope e = Envelope.of(Samples.AGENT, 1_700_000_000_000L, 42, h);
        String text = codec.text(e);
        assertTrue(text.startsWith("{\"version\":5,"), text);
        assertEquals(e, codec.decode(codec.encode(e), "test"));
        String asFour = text.replace("{\"version\":5,", "{\"version\":4,");
        ProtocolException ex = assertThrows(ProtocolException.class,
                () -> codec.decode(asFour.getBytes(StandardCharsets.UTF_8), "agent n7"));
        assertTrue(ex.problems().get(0).message().endsWith("which protocol version 5 added; the envelope says version 4"),
                ex.getMessage());
    }

    /**
     * A desire may keep its unit off nodes (docs/agent.md, "Blacklisting a node for one job"):
     * version 7, refused in an older envelope, without it a desire reads as before (nothing
     * changes), and a name that is no node name or a list over the limit is refused with where.
     */
    @Test
    void aDesiresAvoidIsVersionSevenAndCheckedAtTheEdge() {
        UnitId u = Samples.MAP;
        Request r = new Request(false, List.of(), List.of(new Request.Desire(u, 3, java.util.Set.of("n2", "n1"))), List.of(), List.of());
        assertEquals(7, WireCodec.versionFor(r));
        Envelope e = Envelope.of(Samples.JOB_MASTER, 1_700_000_000_000L, 42, r);
        String text = codec.text(e);
        assertTrue(text.startsWith("{\"version\":7,"), text);
        assertTrue(text.contains("\"avoid\":[\"n1\",\"n2\"]"), text);
        assertEquals(e, codec.decode(codec.encode(e), "test"));

        Request plain = new Request(false, List.of(), List.of(new Request.Desire(u, 3)), List.of(), List.of());
        assertTrue(WireCodec.versionFor(plain) < 7, "a desire without avoid goes to an older master too");
        assertEquals(null, ((Request) codec.decode(codec.encode(Envelope.of(Samples.JOB_MASTER, 1, 1, plain)), "test")
                .message()).desires().get(0).avoid(), "absent: the unit's blacklist stays as it is");

        String asSix = text.replace("{\"version\":7,", "{\"version\":6,");
        ProtocolException old = assertThrows(ProtocolException.class,
                () -> codec.decode(asSix.getBytes(StandardCharsets.UTF_8), "job master jm-1"));
        assertTrue(old.getMessage().contains("which protocol version 7 added; the envelope says version 6"), old.getMessage());

        String badName = text.replace("\"n2\"", "\"no such/node\"");
        ProtocolException bad = assertThrows(ProtocolException.class,
                () -> codec.decode(badName.getBytes(StandardCharsets.UTF_8), "job master jm-1"));
        assertTrue(bad.problems().get(0).field().endsWith(".avoid[1]") && bad.getMessage().contains("is not a node name"),
                bad.problems().toString());

        StringBuilder many = new StringBuilder();
        for (int i = 0; i <= Request.MAX_AVOIDED; i++) {
            many.append(i == 0 ? "" : ",").append("\"n").append(i).append('"');
        }
        String tooMany = text.replace("[\"n1\",\"n2\"]", "[" + many + "]");
        ProtocolException over = assertThrows(ProtocolException.class,
                () -> codec.decode(tooMany.getBytes(StandardCharsets.UTF_8), "job master jm-1"));
        assertTrue(over.getMessage().contains("at most " + Request.MAX_AVOIDED + " nodes to keep a unit off, got "
                + (Request.MAX_AVOIDED + 1)), over.getMessage());
    }

    /**
     * Usage, health and an exit's {@code oom} (version 6, docs/agent.md "What is reported") round-trip
     * and go as version 6; a heartbeat of an agent before them (version 5, no such fields) is read with
     * both null, "not reported"; a version-5 envelope carrying them is refused in words.
     */
    @Test
    void usageHealthAndOomAreVersionSixAndAnOlderAgentsHeartbeatStillReads() {
        UnitId u = Samples.MAP;
        Heartbeat h = new Heartbeat(List.of(), List.of(new Heartbeat.Exit(u, 1, 137, false, new Heartbeat.Oom(256, 256))), null,
                List.of(), new Heartbeat.Usage(Resources.of(150, 2048), List.of(new Heartbeat.WorkerUsage(u, 2, Resources.of(99, 120)))),
                new Heartbeat.Health(false, "3 launches in a row failed"));
        assertEquals(6, WireCodec.versionFor(h));
        Envelope e = Envelope.of(Samples.AGENT, 1_700_000_000_000L, 42, h);
        String text = codec.text(e);
        assertTrue(text.startsWith("{\"version\":6,"), text);
        assertTrue(text.contains("\"oom\":{\"limitMiB\":256,\"peakMiB\":256}"), text);
        assertEquals(e, codec.decode(codec.encode(e), "test"));

        String old = "{\"version\": 5, \"sender\": {\"role\": \"agent\", \"id\": \"n7\"}, \"incarnation\": 5, \"sequence\": 3,"
                + " \"type\": \"heartbeat\", \"message\": {\"started\": [], \"exited\": [{\"unit\": \"wordcount/map\", \"slot\": 1,"
                + " \"exitCode\": 137}]}}";
        Heartbeat back = (Heartbeat) codec.decode(old.getBytes(StandardCharsets.UTF_8), "agent n7").message();
        assertEquals(null, back.usage(), "an older agent reports no usage");
        assertEquals(null, back.health(), "nor health");
        assertEquals(null, back.exited().get(0).oom(), "an ordinary exit");

        String asFive = text.replace("{\"version\":6,", "{\"version\":5,");
        ProtocolException ex = assertThrows(ProtocolException.class,
                () -> codec.decode(asFive.getBytes(StandardCharsets.UTF_8), "agent n7"));
        assertTrue(ex.problems().get(0).message().endsWith("which protocol version 6 added; the envelope says version 5"),
                ex.getMessage());

        Hint hint = new Hint(List.of(), List.of(new Hint.Exit(u, "n1", 1, 137, false, new Heartbeat.Oom(256, 300))));
        assertEquals(6, WireCodec.versionFor(hint));
        Envelope he = Envelope.of(Samples.AGENT, 1, 1, hint);
        assertEquals(he, codec.decode(codec.encode(he), "test"));

        String negative = text.replace("\"peakMiB\":256", "\"peakMiB\":-1");
        ProtocolException bad = assertThrows(ProtocolException.class,
                () -> codec.decode(negative.getBytes(StandardCharsets.UTF_8), "agent n7"));
        assertEquals("$.message.exited[0].oom.peakMiB", bad.problems().get(0).field(), bad.getMessage());
    }

    /**
     * An exit's {@code stopped} is written only where its code does not say it: without the field an
     * exit is a stop exactly when its code is -15, so an exit of older meaning still travels as
     * version 2, and the reader takes the code's word (docs/protocol.md, "Exits").
     */
    @Test
    void anExitCarriesStoppedOnlyWhereItDiffersFromItsCodeBeingMinus15() {
        UnitId u = Samples.MAP;
        Heartbeat plain = new Heartbeat(List.of(), List.of(new Heartbeat.Exit(u, 1, Heartbeat.STOPPED), new Heartbeat.Exit(u, 2, 0)), null);
        Envelope e = Envelope.of(Samples.AGENT, 1, 1, plain);
        assertEquals(2, e.version());
        assertFalse(codec.text(e).contains("stopped"), codec.text(e));
        Heartbeat back = (Heartbeat) codec.decode(codec.encode(e), "test").message();
        assertTrue(back.exited().get(0).stopped(), "no field, code -15: a stop");
        assertFalse(back.exited().get(1).stopped(), "no field, code 0: not a stop");

        Hint plainHint = new Hint(List.of(), List.of(new Hint.Exit(u, "n1", 1, Heartbeat.STOPPED), new Hint.Exit(u, "n1", 2, 3)));
        assertEquals(2, WireCodec.versionFor(plainHint));
        assertFalse(codec.text(Envelope.of(Samples.AGENT, 1, 1, plainHint)).contains("stopped"));

        String zero = codec.text(Envelope.of(Samples.AGENT, 1, 1, new Heartbeat(List.of(), List.of(new Heartbeat.Exit(u, 1, 0, true)), null)));
        assertTrue(zero.contains("\"exitCode\":0,\"stopped\":true"), zero);
        String notStopped = codec.text(Envelope.of(Samples.AGENT, 1, 1, new Hint(List.of(),
                List.of(new Hint.Exit(u, "n1", 1, Heartbeat.STOPPED, false)))));
        assertTrue(notStopped.contains("\"exitCode\":-15,\"stopped\":false"), notStopped);
    }
}
