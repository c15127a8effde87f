package granary.sim.trace;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

import granary.codec.json.Json;
import granary.codec.json.JsonLimits;
import granary.codec.json.JsonProblem;
import granary.codec.json.JsonReader;
import granary.codec.json.JsonSyntaxException;
import granary.codec.json.JsonValue;

/**
 * A JSON input of the simulator read with the codec's {@link JsonReader} (strict JSON, UTF-8
 * checked, limits), gzip read transparently like every trace; its problems become
 * {@link TraceException} problems {@code <file>:<line>:<column>: <json path>: <what is wrong>}.
 */
final class JsonInput {

    private JsonInput() {
    }

    /** The file name used in messages. */
    static String name(Path path) {
        return path.getFileName() == null ? path.toString() : path.getFileName().toString();
    }

    /** The document in {@code path}; a missing file, bytes that are not UTF-8 or bad JSON are a {@link TraceException}. */
    static JsonValue read(Path path) {
        String name = name(path);
        try (InputStream in = gunzipped(new BufferedInputStream(Files.newInputStream(path), 1 << 16))) {
            return JsonReader.read(in, name, JsonLimits.DEFAULT);
        } catch (JsonSyntaxException e) {
            throw new TraceException(List.of(problem(e.problem())));
        } catch (NoSuchFileException e) {
            throw new TraceException(path.toString(), 0, 0, "no such file (working directory "
                    + Path.of("").toAbsolutePath() + ")");
        } catch (IOException e) {
            throw new TraceException(path.toString(), 0, 0, "cannot read: " + e.getClass().getSimpleName());
        }
    }

    private static InputStream gunzipped(InputStream in) throws IOException {
        in.mark(2);
        int b1 = in.read();
        int b2 = in.read();
        in.reset();
        return b1 == 0x1f && b2 == 0x8b ? new GZIPInputStream(in, 1 << 16) : in;
    }

    /** Throws the problems recorded in {@code json}, at most {@link RowLoop#MAX_PROBLEMS} of them. */
    static void throwIfProblems(Json json) {
        List<TraceException.Problem> out = new ArrayList<>();
        for (JsonProblem p : json.problems()) {
            if (out.size() < RowLoop.MAX_PROBLEMS) {
                out.add(problem(p));
            }
        }
        if (!out.isEmpty()) {
            throw new TraceException(out);
        }
    }

    static TraceException.Problem problem(JsonProblem p) {
        return new TraceException.Problem(p.source(), p.at().line(), p.at().column(), p.path() + ": " + p.message());
    }
}
