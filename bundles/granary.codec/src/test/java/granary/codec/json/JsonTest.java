package granary.codec.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import granary.codec.CodecException;
import granary.codec.JobCodec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Typed reads place each problem at its value, in the file:line:column: path: message form. */
class JsonTest {

    @TempDir
    Path dir;

    @Test
    void typedReadsNameWhatWasExpectedAndWhatCame() {
        JsonObject o = (JsonObject) JsonReader.read("{\n  \"n\": \"5\",\n  \"b\": 1,\n  \"extra\": [],\n  \"s\": \"\\u001b[2Jx\"\n}", "f.json");
        Json json = new Json("f.json");
        json.integer(o, "n", "$", null);
        json.bool(o, "b", "$", false);
        json.string(o, "missing", "$", null);
        json.onlyKnown(o, "$", Set.of("n", "b", "s"));
        json.integer(o, "s", "$", 0L);
        assertEquals(List.of(
                "f.json:2:8: $.n: expected a whole number, got the string \"5\"",
                "f.json:3:8: $.b: expected true or false, got the number 1",
                "f.json:1:1: $.missing: is missing",
                "f.json:4:12: $.extra: unknown field; known fields: b, n, s",
                "f.json:5:8: $.s: expected a whole number, got the string \"\\u001B[2Jx\""),
                json.problems().stream().map(JsonProblem::toString).toList());
    }

    @Test
    void problemsBeyondTheLimitAreCounted() {
        JsonArray a = (JsonArray) JsonReader.read("[" + "\"x\",".repeat(150) + "1]", "f.json");
        Json json = new Json("f.json");
        for (int i = 0; i < a.size() - 1; i++) {
            json.integer(a.get(i), JsonPath.item("$", i));
        }
        CodecException e = assertThrows(CodecException.class, json::throwIfProblems);
        assertEquals(Json.MAX_PROBLEMS + 1, e.problems().size());
        assertEquals("f.json: $: 50 more problems not shown (the first 100 are)", e.problems().get(Json.MAX_PROBLEMS).toString());
    }

    @Test
    void aFileThatIsNotUtf8IsNamed() throws IOException {
        Path f = Files.write(dir.resolve("job.json"), new byte[] {'{', '"', 'i', 'd', '"', ':', '"', (byte) 0xff, '"', '}'});
        CodecException e = assertThrows(CodecException.class, () -> JobCodec.read(f));
        assertEquals(f + ":1:8: $: not UTF-8 at byte 7 (0xFF); save the file as UTF-8", e.getMessage());
    }

    @Test
    void aMissingFileIsNamed() {
        Path f = dir.resolve("none.json");
        CodecException e = assertThrows(CodecException.class, () -> JobCodec.read(f));
        assertEquals(f + ": $: no such file (looked for " + f.toAbsolutePath() + ")", e.getMessage());
    }
}
