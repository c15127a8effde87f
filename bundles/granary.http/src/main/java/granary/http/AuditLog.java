package granary.http;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Every write to the API, accepted or refused: who, what, when, and the result (docs/api.md,
 * "Audit log"). Appended as one JSON object per line to a file (flushed per entry, so a crash
 * loses at most the entry being written), and the latest kept in memory for
 * {@code GET /api/v1/audit}. A write that cannot be recorded is still answered, and the failure
 * is said on standard error: the log must not become a way to stop the scheduler.
 *
 * <p>Bounded (docs/security.md, "Errors and logs"): every field is cut (a path, query or result
 * to a few hundred characters, with its full length said); a write from a caller without a valid
 * token is recorded short (no query, no result text) and at most {@value #UNAUTHENTICATED_PER_SECOND}
 * a second, the rest counted in the next such line; the file is rotated when it passes its size
 * limit ({@code file.1} ... {@code file.<n>}, the oldest dropped).
 */
public final class AuditLog implements AutoCloseable {

    /** One entry. */
    public record Entry(long timeMillis, String who, String remote, String method, String path, String query,
                        int status, String result) {

        JsonObject json() {
            JsonObject o = new JsonObject();
            o.addProperty("time", Instant.ofEpochMilli(timeMillis).toString());
            o.addProperty("who", who);
            o.addProperty("remote", remote);
            o.addProperty("method", method);
            o.addProperty("path", path);
            if (query != null) {
                o.addProperty("query", query);
            }
            o.addProperty("status", status);
            o.addProperty("result", result);
            return o;
        }
    }

    /** Who a write without a valid token is recorded as. */
    public static final String UNAUTHENTICATED = "unauthenticated";
    static final int UNAUTHENTICATED_PER_SECOND = 10;
    /** The longest a recorded field is, in characters. */
    static final int MAX_FIELD = 512;
    public static final long DEFAULT_MAX_BYTES = 64L << 20;
    public static final int DEFAULT_FILES = 5;

    private final Path file;
    private final int kept;
    private final LongSupplier clock;
    private final long maxBytes;
    private final int files;
    private final Deque<Entry> latest = new ArrayDeque<>();
    private Writer out;
    private long size;
    private long second = -1;
    private int unauthenticated;
    private long unrecorded;

    /**
     * @param file  where entries are appended (created with its directories), or null to keep them in memory only
     * @param kept  how many of the latest entries {@link #latest} returns
     */
    public AuditLog(Path file, int kept, LongSupplier clock) {
        this(file, kept, clock, DEFAULT_MAX_BYTES, DEFAULT_FILES);
    }

    /** The same, rotated past {@code maxBytes}, keeping {@code files} rotated files. */
    public AuditLog(Path file, int kept, LongSupplier clock, long maxBytes, int files) {
        this.file = file;
        this.kept = kept;
        this.clock = clock;
        this.maxBytes = maxBytes;
        this.files = files;
    }

    /** The file is opened at the first write, so that a runtime nobody writes to leaves no empty log behind. */
    private Writer out() throws IOException {
        if (out == null && file != null) {
            Path dir = file.toAbsolutePath().getParent();
            if (dir != null) {
                Files.createDirectories(dir);
            }
            out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            size = Files.size(file);
        }
        return out;
    }

    /** Past its size limit: the file becomes {@code file.1} (and so on up), a new one is started. */
    private void rotateIfFull() throws IOException {
        if (out == null || size < maxBytes) {
            return;
        }
        out.close();
        out = null;
        Files.deleteIfExists(rotated(files));
        for (int i = files - 1; i >= 1; i--) {
            if (Files.exists(rotated(i))) {
                Files.move(rotated(i), rotated(i + 1), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        }
        Files.move(file, rotated(1), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private Path rotated(int n) {
        return file.resolveSibling(file.getFileName() + "." + n);
    }

    /** {@code s} cut to {@code max} characters, its full length said. */
    static String cut(String s, int max) {
        if (s == null || s.length() <= max) {
            return s;
        }
        int end = Character.isHighSurrogate(s.charAt(max - 1)) ? max - 1 : max;
        return s.substring(0, end) + "… (" + s.length() + " chars)";
    }

    public Path file() {
        return file;
    }

    /** Records a write and its result. */
    public synchronized void record(String who, String remote, String method, String path, String query, int status, String result) {
        long now = clock.getAsLong();
        String note = result;
        if (UNAUTHENTICATED.equals(who)) {
            if (now / 1000 != second) {
                second = now / 1000;
                unauthenticated = 0;
            }
            if (++unauthenticated > UNAUTHENTICATED_PER_SECOND) {
                unrecorded++;
                return;
            }
            query = null;
            note = "refused without a valid token" + (unrecorded > 0 ? " (" + unrecorded + " more such writes not recorded)" : "");
            unrecorded = 0;
            path = cut(path, 128);
        }
        Entry e = new Entry(now, cut(who, 128), cut(remote, 64), cut(method, 16), cut(path, MAX_FIELD), cut(query, MAX_FIELD), status,
                cut(note, MAX_FIELD));
        latest.addLast(e);
        while (latest.size() > kept) {
            latest.removeFirst();
        }
        if (file != null) {
            try {
                rotateIfFull();
                Writer w = out();
                String line = Json.write(e.json()) + "\n";
                w.write(line);
                w.flush();
                size += line.getBytes(StandardCharsets.UTF_8).length;
            } catch (IOException ex) {
                System.err.println("granary: audit log " + file + ": cannot append (" + ex.getMessage() + "): " + Json.write(e.json()));
            }
        }
    }

    /** The latest entries, oldest first, at most {@code limit}. */
    public synchronized List<Entry> latest(int limit) {
        List<Entry> all = List.copyOf(latest);
        return all.subList(Math.max(0, all.size() - limit), all.size());
    }

    static JsonArray json(List<Entry> entries) {
        JsonArray a = new JsonArray();
        entries.forEach(e -> a.add(e.json()));
        return a;
    }

    @Override
    public synchronized void close() {
        if (out != null) {
            try {
                out.close();
            } catch (IOException e) {
                // closing at shutdown: every entry was flushed when written
            }
            out = null;
        }
    }
}
