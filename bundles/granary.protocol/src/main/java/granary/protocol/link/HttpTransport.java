package granary.protocol.link;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.function.BiConsumer;
import javax.net.ssl.SSLContext;

/**
 * {@link Transport} over the JDK's HTTP client; HTTPS with the given context. No thread of its own.
 * <p>
 * In clear text it asks for HTTP/2 (docs/protocol.md, "Transport"): the JDK's client upgrades a
 * connection on its first request without a body — a link's first long poll — and from then on the
 * peer's posts and its parked poll are streams of that one connection, so a master holds one socket
 * per peer instead of two. Posts made before it (the registration) go over HTTP/1.1. A master that
 * speaks only HTTP/1.1 ignores the upgrade, and the link stays on HTTP/1.1. Over TLS the JDK's client
 * offers HTTP/2 by ALPN; a master without it answers in HTTP/1.1.
 */
public final class HttpTransport implements Transport {

    private final HttpClient http;

    /**
     * @param connectTimeout how long a connection may take
     * @param tls            the SSL context for {@code https} servers, or null for the JDK's default
     */
    public HttpTransport(Duration connectTimeout, SSLContext tls) {
        HttpClient.Builder b = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).connectTimeout(connectTimeout);
        if (tls != null) {
            b.sslContext(tls);
        }
        this.http = b.build();
    }

    /**
     * Over {@code http}, a client the caller made and may share among many links (a load generator's
     * thousands of peers on a few clients, with the executor it chose), in the HTTP version it chose.
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
