package granary.codec.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The strict reader: what it accepts, and for malformed input the message, line and column. */
class JsonReaderTest {

    private static final JsonLimits SMALL = new JsonLimits(1000, 3, 10, 5);

    private static String error(String text, JsonLimits limits) {
        return assertThrows(JsonSyntaxException.class,
                () -> JsonReader.read(text.getBytes(StandardCharsets.UTF_8), "in.json", limits)).getMessage();
    }

    /** Inputs are written with ⏎ for a line break and ␀ for NUL, so that the table stays one line per case. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            empty                 | ``                          | in.json:1:1: $: not valid JSON: the document is empty; expected a value
            only spaces           | `  ⏎ `                      | in.json:2:2: $: not valid JSON: the document is empty; expected a value
            truncated object      | {"a": 1                     | in.json:1:8: $: not valid JSON: the document ends inside an object
            truncated array       | [1, 2                       | in.json:1:6: $: not valid JSON: the document ends inside an array
            truncated string      | {"a": "xy                   | in.json:1:10: $.a: not valid JSON: the document ends inside a string
            truncated after key   | {"a"                        | in.json:1:5: $.a: not valid JSON: expected ':' after the key
            trailing garbage      | {"a": 1} x                  | in.json:1:10: $: not valid JSON: unexpected content after the JSON document
            second document       | []⏎⏎[]                      | in.json:3:1: $: not valid JSON: unexpected content after the JSON document
            missing comma         | {"a": [1 2]}                | in.json:1:10: $.a: not valid JSON: expected ',' or ']'
            trailing comma array  | [1, ]                       | in.json:1:5: $: not valid JSON: expected a value after ',' (no trailing commas)
            trailing comma object | {"a": 1, }                  | in.json:1:10: $: not valid JSON: expected a key in double quotes after ',' (no trailing commas)
            unquoted key          | {a: 1}                      | in.json:1:2: $: not valid JSON: expected a key in double quotes
            single quotes         | ['x']                       | in.json:1:2: $[0]: not valid JSON: strings need double quotes, not single quotes
            comment               | [1, // two⏎2]               | in.json:1:5: $[1]: not valid JSON: comments are not allowed in JSON
            bad escape            | ["a\\qb"]                   | in.json:1:4: $[0]: not valid JSON: bad escape '\\q'; use \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX
            short unicode escape  | ["\\u12"]                   | in.json:1:3: $[0]: not valid JSON: bad escape: \\u must be followed by four hex digits
            lone high surrogate   | {"k": "a\\ud800b"}          | in.json:1:9: $.k: not valid JSON: \\ud800 is half of a surrogate pair, and the other half (\\udc00 to \\udfff) does not follow
            lone low surrogate    | {"k": "\\udc00"}            | in.json:1:8: $.k: not valid JSON: \\udc00 is the second half of a surrogate pair without a first half (\\ud800 to \\udbff) before it
            newline in string     | ["a⏎b"]                     | in.json:1:4: $[0]: not valid JSON: a string is not closed before the end of the line (write a line break as \\n)
            NUL in string         | ["a␀b"]                     | in.json:1:4: $[0]: not valid JSON: control character U+0000 in a string; write it as \\u0000
            tab in string         | ["a\tb"]                    | in.json:1:4: $[0]: not valid JSON: control character U+0009 in a string; write it as \\u0009
            NaN                   | {"x": NaN}                  | in.json:1:7: $.x: not valid JSON: 'NaN' is not a JSON value (JSON has no NaN or Infinity)
            Infinity              | [-Infinity]                 | in.json:1:2: $[0]: not valid JSON: '-Infinity' is not a JSON value (JSON has no NaN or Infinity)
            minus nothing         | [-]                         | in.json:1:3: $[0]: not valid JSON: expected a digit
            hash comment          | {# note⏎}                   | in.json:1:2: $: not valid JSON: comments are not allowed in JSON
            single-quoted key     | {'a': 1}                    | in.json:1:2: $: not valid JSON: strings need double quotes, not single quotes
            bare word             | [yes]                       | in.json:1:2: $[0]: not valid JSON: 'yes' is not a JSON value; strings need double quotes
            leading zero          | [01]                        | in.json:1:2: $[0]: not valid JSON: a number must not start with 0 (leading zeros are not allowed)
            plus sign             | [+1]                        | in.json:1:2: $[0]: not valid JSON: a number must not start with '+'
            leading dot           | [.5]                        | in.json:1:2: $[0]: not valid JSON: a number must start with a digit
            no fraction digits    | [1.]                        | in.json:1:4: $[0]: not valid JSON: expected a digit after '.'
            no exponent digits    | [1e+]                       | in.json:1:5: $[0]: not valid JSON: expected a digit in the exponent
            duplicate key         | {"a": 1,⏎ "a": 2}           | in.json:2:2: $.a: key 'a' is given twice in the same object
            duplicate nested key  | {"b": [{"id": 1, "id": 2}]} | in.json:1:18: $.b[0].id: key 'id' is given twice in the same object
            too deep              | [[[[1]]]]                   | in.json:1:4: $[0][0][0]: not valid JSON: nested deeper than the limit of 3 levels
            string too long       | ["abcdefghijk"]             | in.json:1:13: $[0]: not valid JSON: a string is longer than the limit of 10 characters
            key too long          | {"abcdefghijk": 1}          | in.json:1:13: $: not valid JSON: a string is longer than the limit of 10 characters
            number too long       | [123456]                    | in.json:1:2: $[0]: not valid JSON: a number is longer than the limit of 5 characters
            ANSI escape echoed    | [␛x]                        | in.json:1:2: $[0]: not valid JSON: expected a value (an object, array, string, number, true, false or null), got '\\u001B'
            """)
    void refusesMalformedInput(String what, String input, String expected) {
        String text = (input == null ? "" : input).replace("⏎", "\n").replace("␀", "\0").replace("␛", "\u001b");
        assertEquals(expected, error(text, SMALL), what);
    }

    @Test
    void tooLargeInputIsRefusedBeforeReading() {
        assertEquals("in.json:1:1: $: the input is larger than the limit of 1000 bytes", error("[" + "1,".repeat(600) + "1]", SMALL));
    }

    @Test
    void bytesThatAreNotUtf8AreNamedWithTheirOffset() {
        byte[] latin1 = "{\"name\":\n \"caf\u00e9\"}".getBytes(StandardCharsets.ISO_8859_1);
        JsonSyntaxException e = assertThrows(JsonSyntaxException.class, () -> JsonReader.read(latin1, "in.json", JsonLimits.DEFAULT));
        assertEquals("in.json:2:6: $: not UTF-8 at byte 14 (0xE9); save the file as UTF-8", e.getMessage());
        assertEquals(new JsonPosition(2, 6), e.problem().at());
    }

    @Test
    void aByteOrderMarkIsSkipped() {
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '[', '1', ']'};
        JsonArray a = assertInstanceOf(JsonArray.class, JsonReader.read(bom, "in.json", JsonLimits.DEFAULT));
        assertEquals(new JsonPosition(1, 1), a.position());
    }

    @Test
    void valuesKeepOrderPositionsAndNumberText() {
        JsonObject o = assertInstanceOf(JsonObject.class, JsonReader.read("{\"z\": 1.50,\n  \"a\": [true, null, \"\\u00e9\\ud83d\\ude00\"]}", "in.json"));
        assertEquals(List.of("z", "a"), o.members().stream().map(JsonObject.Member::key).toList());
        assertEquals("1.50", ((JsonNumber) o.get("z")).text());
        assertEquals(new JsonPosition(1, 7), o.get("z").position());
        assertEquals(new JsonPosition(2, 3), o.members().get(1).keyPosition());
        JsonArray a = (JsonArray) o.get("a");
        assertEquals(new JsonPosition(2, 8), a.position());
        assertEquals(new JsonBoolean(true, new JsonPosition(2, 9)), a.get(0));
        assertInstanceOf(JsonNull.class, a.get(1));
        assertEquals("\u00e9\ud83d\ude00", ((JsonString) a.get(2)).value());
    }

    @Test
    void writtenValuesReadBackTheSame() {
        JsonObject o = JsonObject.builder().put("s", "line\nbreak \"q\" \u202e").put("n", -12).put("b", false)
                .put("o", JsonObject.builder().build()).build();
        JsonObject back = (JsonObject) JsonReader.read(JsonWriter.write(o), "out.json");
        assertEquals(JsonWriter.write(o), JsonWriter.write(back), "equal but for the positions");
        assertEquals("line\nbreak \"q\" \u202e", ((JsonString) back.get("s")).value());
        assertTrue(JsonWriter.write(o).contains("\\u202e"), "bidi override written as an escape");
    }

    @Test
    void compactValuesReadBackTheSame() {
        JsonObject o = JsonObject.builder().put("s", "a b\n").put("a", new JsonArray(java.util.List.of(JsonValue.of(1),
                JsonObject.builder().put("x", true).build()), JsonPosition.NONE)).put("e", JsonObject.builder().build()).build();
        String compact = JsonWriter.compact(o);
        assertEquals("{\"s\":\"a b\\n\",\"a\":[1,{\"x\":true}],\"e\":{}}", compact);
        assertEquals(JsonWriter.write(o), JsonWriter.write(JsonReader.read(compact, "wire")));
    }

    @Test
    void keysThatAreNotPlainAreQuotedInPaths() {
        String e = error("{\"a b\": {\"x\\u001b[31m\": [1,]}}", JsonLimits.DEFAULT);
        assertEquals("in.json:1:28: $[\"a b\"][\"x\\u001B[31m\"]: not valid JSON: expected a value after ',' (no trailing commas)", e);
    }

    /** Objects of a few members are looked up one by one, larger ones through a map: both find every key and refuse a repeat. */
    @Test
    void smallAndLargeObjectsFindTheirKeysAndRefuseARepeatedOne() {
        for (int n : new int[] {1, JsonObject.FEW, JsonObject.FEW + 1, 40}) {
            StringBuilder sb = new StringBuilder("{");
            for (int i = 0; i < n; i++) {
                sb.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":").append(i);
            }
            JsonObject o = assertInstanceOf(JsonObject.class, JsonReader.read(sb + "}", "in.json"));
            for (int i = 0; i < n; i++) {
                assertEquals("" + i, ((JsonNumber) o.get("k" + i)).text(), n + " members, key k" + i);
                assertTrue(o.has("k" + i));
            }
            assertEquals(null, o.get("k" + n));
            assertEquals(false, o.has("k" + n));
            for (int again : new int[] {0, n - 1}) {
                String e = error(sb + ",\"k" + again + "\":0}", JsonLimits.DEFAULT);
                assertTrue(e.endsWith(": $.k" + again + ": key 'k" + again + "' is given twice in the same object"), e);
            }
        }
        assertThrows(IllegalArgumentException.class, () -> new JsonObject(List.of(
                new JsonObject.Member("a", JsonPosition.NONE, JsonValue.of(1)),
                new JsonObject.Member("a", JsonPosition.NONE, JsonValue.of(2))), JsonPosition.NONE));
    }

    /** The path named by an error deep inside arrays and objects is the value being read (the reader keeps it as a stack). */
    @Test
    void errorsNameThePathOfTheValueBeingRead() {
        assertEquals("in.json:1:27: $.a[1].b[2]: not valid JSON: 'nul' is not a JSON value; strings need double quotes",
                error("{\"a\": [0, {\"b\": [true, 1, nul]}]}", JsonLimits.DEFAULT));
        assertEquals("in.json:1:27: $.c: not valid JSON: expected ':' after the key",
                error("{\"a\": [0, {\"b\": []}], \"c\" 1}", JsonLimits.DEFAULT));
        assertEquals("in.json:1:20: $.a[1].b: not valid JSON: expected ',' or ']'",
                error("{\"a\": [0, {\"b\": [[]}]}", JsonLimits.DEFAULT));
        assertEquals("in.json:1:21: $.x: not valid JSON: bad escape '\\q'; use \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX",
                error("{\"a\": [\"ok\"], \"x\": \"\\q\"}", JsonLimits.DEFAULT));
    }
}
