package granary.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

/** Small input files (queue trees, quota tables, traces) written into a test's temporary folder. */
public final class TestFiles {

    private TestFiles() {
    }

    /** Writes {@code text} as UTF-8 to {@code dir/name} and returns the path. */
    public static Path write(Path dir, String name, String text) {
        Path p = dir.resolve(name);
        try {
            Files.writeString(p, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + p, e);
        }
        return p;
    }

    /** Writes {@code text} gzipped (UTF-8) to {@code dir/name} and returns the path. */
    public static Path gzip(Path dir, String name, String text) {
        Path p = dir.resolve(name);
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(p))) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + p, e);
        }
        return p;
    }
}
