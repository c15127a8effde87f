package granary.sim.trace;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import granary.api.model.InvalidRequestException;
import granary.sim.workload.Workload;

/** Reading the reader tests' small trace files (written with granary.testkit.TestFiles) the way the simulator does. */
final class Files {

    /** A 64-core / 256 GiB node: normalized memory 1.0 = 262144 MiB. */
    static final TraceContext CTX = new TraceContext(262_144, false, 1);

    private Files() {
    }

    static Map<String, String> options(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String s : kv) {
            int eq = s.indexOf('=');
            m.put(s.substring(0, eq), s.substring(eq + 1));
        }
        return m;
    }

    static Workload read(TraceFormat f, Path file, String... options) {
        return f.read(file, options(options), CTX);
    }

    static Workload read(TraceFormat f, Path file, TraceContext ctx, String... options) {
        return f.read(file, options(options), ctx);
    }

    /** The error of reading a bad file (a TraceException: file, line, column). */
    static String error(TraceFormat f, Path file, String... options) {
        return assertThrows(TraceException.class, () -> read(f, file, options)).getMessage();
    }

    /** The error of a bad option. */
    static String optionError(TraceFormat f, Path file, String... options) {
        return assertThrows(InvalidRequestException.class, () -> read(f, file, options)).getMessage();
    }
}
