package granary.protocol.link;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import javax.net.ssl.SSLContext;

/** {@link Transport} over the JDK's HTTP client (HTTP/1.1; HTTPS with the given context). No thread of its own. */
public final class HttpTransport implements Transport {

    private final HttpClient http;

    /**
     * @param connectTimeout how long a connection may take
     * @param tls            the SSL context for {@code https} servers, or null for the JDK's default
     */
    public HttpTransport(Duration connectTimeout, SSLContext tls) {
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(connectTimeout);
        if (tls != null) {
            b.sslContext(tls);
        }
        this.http = b.build();
    }

    /**
     * Over {@code http}, a client the caller made and may share among many links (a load generator's
     * thousands of peers on a few clients, with the executor it chose). Use HTTP/1.1, as the
     * other constructor does.
     */
    public HttpTransport(HttpClient http) {
        this.http = java.util.Objects.requireNonNull(http, "http");
    }

    @Override
    public void exchange(Call call, Loop loop, BiConsumer<Response, IOException> done) {
        HttpRequest.Builder b = HttpRequest.newBuilder(call.uri()).timeout(call.timeout());
        if (call.authorization() != null) {
            b.header("Authorization", call.authorization());
        }
        if (call.method().equals("POST")) {
            b.header("Content-Type", Reply.CONTENT_TYPE).POST(HttpRequest.BodyPublishers.ofByteArray(call.body()));
        } else {
            b.GET();
        }
        HttpRequest request;
        try {
            request = b.build();
        } catch (IllegalArgumentException ex) {
            loop.execute(() -> done.accept(null, new IOException("cannot call " + call.uri() + ": " + ex.getMessage(), ex)));
            return;
        }
        http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray()).whenComplete((r, failure) -> {
            if (failure != null) {
                Throwable cause = failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
                IOException io = cause instanceof IOException x ? x : new IOException(cause.toString(), cause);
                loop.execute(() -> done.accept(null, io));
            } else {
                Response resp = new Response(r.statusCode(), r.body(), r.headers().firstValue(Standby.LEADER_HEADER).orElse(null));
                loop.execute(() -> done.accept(resp, null));
            }
        });
    }
}
