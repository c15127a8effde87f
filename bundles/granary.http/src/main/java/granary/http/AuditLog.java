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

    private final Path file;
    private final int kept;
    private final LongSupplier clock;
    private final Deque<Entry> latest = new ArrayDeque<>();
    private Writer out;

    /**
     * @param file  where entries are appended (created with its directories), or null to keep them in memory only
     * @param kept  how many of the latest entries {@link #latest} returns
     */
    public AuditLog(Path file, int kept, LongSupplier clock) {
        this.file = file;
        this.kept = kept;
        this.clock = clock;
    }

    /** The file is opened at the first write, so that a runtime nobody writes to leaves no empty log behind. */
    private Writer out() throws IOException {
        if (out == null && file != null) {
            Path dir = file.toAbsolutePath().getParent();
            if (dir != null) {
                Files.createDirectories(dir);
            }
            out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
        return out;
    }

    public Path file() {
        return file;
    }

    /** Records a write and its result. */
    public synchronized void record(String who, String remote, String method, String path, String query, int status, String result) {
        Entry e = new Entry(clock.getAsLong(), who, remote, method, path, query, status, result);
        latest.addLast(e);
        while (latest.size() > kept) {
            latest.removeFirst();
        }
        if (file != null) {
            try {
                Writer w = out();
                w.write(Json.write(e.json()));
                w.write('\n');
                w.flush();
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
