package granary.http;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;

/** A Server-Sent Events reader over the JDK's HTTP client, for tests: events in a queue, every wait bounded. */
final class SseClient implements AutoCloseable {

    /** One event: its id, type and data. */
    record Event(String id, String type, String data) {
        JsonObject json() {
            return JsonParser.parseString(data).getAsJsonObject();
        }

        long seq() {
            return Long.parseLong(id.substring(id.lastIndexOf('.') + 1));
        }
    }

    final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    final int status;
    private final Stream<String> lines;
    private final Thread reader;

    SseClient(URI url, String token, String lastEventId) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(url).header("Authorization", "Bearer " + token);
        if (lastEventId != null) {
            b.header("Last-Event-ID", lastEventId);
        }
        HttpResponse<Stream<String>> r = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()
                .send(b.build(), HttpResponse.BodyHandlers.ofLines());
        status = r.statusCode();
        lines = r.body();
        reader = new Thread(() -> {
            String id = null;
            String type = "message";
            StringBuilder data = new StringBuilder();
            try {
                for (String line : (Iterable<String>) lines::iterator) {
                    if (line.isEmpty()) {
                        if (data.length() > 0) {
                            events.add(new Event(id, type, data.toString()));
                        }
                        type = "message";
                        data.setLength(0);
                    } else if (line.startsWith("id: ")) {
                        id = line.substring(4);
                    } else if (line.startsWith("event: ")) {
                        type = line.substring(7);
                    } else if (line.startsWith("data: ")) {
                        data.append(line.substring(6));
                    }
                }
            } catch (RuntimeException e) {
                // closed
            }
        }, "sse-test-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** The next event that matches, skipping others; fails after 10 s. */
    Event next(Predicate<Event> p) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < until) {
            Event e = events.poll(100, TimeUnit.MILLISECONDS);
            if (e != null && p.test(e)) {
                return e;
            }
        }
        throw new AssertionError("no matching event within 10 s");
    }

    Event next(String type) throws InterruptedException {
        return next(e -> e.type().equals(type));
    }

    /** Every event until one matches (inclusive); fails after 10 s. */
    List<Event> until(Predicate<Event> p) throws InterruptedException {
        List<Event> out = new ArrayList<>();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < until) {
            Event e = events.poll(100, TimeUnit.MILLISECONDS);
            if (e != null) {
                out.add(e);
                if (p.test(e)) {
                    return out;
                }
            }
        }
        throw new AssertionError("no matching event within 10 s; got " + out.size() + " events");
    }

    @Override
    public void close() {
        lines.close();
        reader.interrupt();
    }
}
