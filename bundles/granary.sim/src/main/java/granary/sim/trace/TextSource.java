package granary.sim.trace;

import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;

/**
 * Lines of a text file with their numbers. A gzip file is read transparently, whatever its name
 * (recognised by its magic bytes, so {@code .gz}, {@code .swf.gz} and renamed copies all work).
 * Line ends may be LF or CRLF.
 */
public final class TextSource implements Closeable {

    private final String name;
    private final BufferedReader reader;
    private long lineNo;

    private TextSource(String name, BufferedReader reader) {
        this.name = name;
        this.reader = reader;
    }

    /** Opens a file; a missing or unreadable file is a {@link TraceException} naming it. */
    public static TextSource open(Path path) {
        String name = path.getFileName() == null ? path.toString() : path.getFileName().toString();
        try {
            InputStream in = new BufferedInputStream(Files.newInputStream(path), 1 << 16);
            return new TextSource(name, new BufferedReader(new InputStreamReader(maybeGunzip(in), StandardCharsets.UTF_8), 1 << 16));
        } catch (NoSuchFileException e) {
            throw new TraceException(path.toString(), 0, 0, "no such file (working directory "
                    + Path.of("").toAbsolutePath() + ")");
        } catch (IOException e) {
            throw new TraceException(path.toString(), 0, 0, "cannot read: " + e.getMessage());
        }
    }

    /** For tests and generated inputs. */
    public static TextSource of(String name, String text) {
        return new TextSource(name, new BufferedReader(new java.io.StringReader(text)));
    }

    private static InputStream maybeGunzip(InputStream in) throws IOException {
        in.mark(2);
        int b1 = in.read();
        int b2 = in.read();
        in.reset();
        return b1 == 0x1f && b2 == 0x8b ? new GZIPInputStream(in, 1 << 16) : in;
    }

    /** The file name used in messages. */
    public String name() {
        return name;
    }

    /** The next line without its line end, or null at the end of the file. */
    public String next() {
        try {
            String line = reader.readLine();
            if (line != null) {
                lineNo++;
                if (!line.isEmpty() && line.charAt(line.length() - 1) == '\r') {
                    line = line.substring(0, line.length() - 1);
                }
            }
            return line;
        } catch (IOException e) {
            throw new UncheckedIOException(name + ":" + lineNo + ": cannot read: " + e.getMessage(), e);
        }
    }

    /** Number of the line {@link #next} returned last (1-based). */
    public long lineNo() {
        return lineNo;
    }

    /** Where the current line is, {@code file:line}. */
    public String where() {
        return name + ":" + lineNo;
    }

    @Override
    public void close() {
        try {
            reader.close();
        } catch (IOException e) {
            // nothing was written; a failing close of a read-only file changes nothing
        }
    }
}
