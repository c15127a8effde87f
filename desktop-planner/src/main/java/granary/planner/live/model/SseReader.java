package granary.planner.live.model;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;

/**
 * Reads a Server-Sent Events body (the allocation stream, docs/api.md) into events, one call per
 * event. Lines are counted from 1 so that a problem can say where it is; a line that is not an SSE
 * field is reported and skipped: one bad line must not end the subscription.
 */
public final class SseReader {

    /** What the reader finds. */
    public interface Listener {
        /**
         * One complete event.
         *
         * @param id   its id, or null if it had none (the last event id then stays as it was)
         * @param type its {@code event:} field, {@code message} if it had none
         * @param data its data lines joined with {@code \n}
         * @param line the line of its first data field
         */
        void event(String id, String type, String data, long line);

        /** A line the reader could not use, with what is wrong. */
        void problem(long line, String message);
    }

    private final BufferedReader in;
    private final Listener listener;
    private long line;

    public SseReader(InputStream in, Listener listener) {
        this(new InputStreamReader(in, StandardCharsets.UTF_8), listener);
    }

    public SseReader(Reader in, Listener listener) {
        this.in = in instanceof BufferedReader b ? b : new BufferedReader(in, 1 << 16);
        this.listener = listener;
    }

    /** Lines read so far. */
    public long line() {
        return line;
    }

    /** Reads until the end of the body; an I/O error (a dropped connection) is thrown to the caller, which reconnects. */
    public void run() throws IOException {
        String id = null;
        String type = null;
        StringBuilder data = null;
        long dataLine = 0;
        String text;
        while ((text = in.readLine()) != null) {
            line++;
            if (text.isEmpty()) {
                if (data != null) {
                    listener.event(id, type == null ? "message" : type, data.toString(), dataLine);
                }
                id = null;
                type = null;
                data = null;
                continue;
            }
            if (text.charAt(0) == ':') {
                continue; // a comment: the master's keep-alive
            }
            int colon = text.indexOf(':');
            String field = colon < 0 ? text : text.substring(0, colon);
            String value = colon < 0 ? "" : text.substring(colon + 1 < text.length() && text.charAt(colon + 1) == ' ' ? colon + 2 : colon + 1);
            switch (field) {
                case "data" -> {
                    if (data == null) {
                        data = new StringBuilder(value.length());
                        dataLine = line;
                    } else {
                        data.append('\n');
                    }
                    data.append(value);
                }
                case "event" -> type = value;
                case "id" -> id = value;
                case "retry" -> {
                    // the master's reconnection delay: the subscription has its own bounded backoff
                }
                default -> listener.problem(line, "not a Server-Sent Events field (data, event, id, retry): '" + shorten(text) + "'");
            }
        }
        // a body cut in the middle of an event: the event is incomplete and dropped, as the SSE rules say
    }

    static String shorten(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }
}
