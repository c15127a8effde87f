package granary.http;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import granary.api.event.NodeAdded;
import granary.api.event.PolicyInstalled;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.spi.PolicyProvider;
import granary.master.LeaderLease;
import granary.protocol.link.Tokens;
import granary.testkit.LiveEngine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.Supplier;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The API on a real Jetty (the one the runtime's Felix HTTP embeds) on a loopback port, over a real
 * engine with the policies found on the class path (fifo selected; quota and queues installed), and
 * tokens of every role. Not the thing under test: its fixture.
 */
final class ApiHarness implements AutoCloseable {

    final LiveEngine engine;
    final Server jetty;
    final URI base;
    final Tokens tokens;
    /** The servlet under test (its limits' counts are read by tests). */
    final ApiServlet servlet;
    final AuditLog audit;
    final EventStream stream;
    final Api api;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    final String reader;
    final String operator;
    final String admin;
    final String agent;

    ApiHarness(Path auditFile, int streamBuffer) throws Exception {
        this(auditFile, streamBuffer, () -> LeaderLease.ALWAYS);
    }

    /** The API of a runtime whose leadership is {@code lease} (null from it: no master side). */
    ApiHarness(Path auditFile, int streamBuffer, Supplier<LeaderLease> lease) throws Exception {
        List<PolicyProvider> providers = new ArrayList<>();
        ServiceLoader.load(PolicyProvider.class).forEach(providers::add);
        engine = new LiveEngine(List.of("fifo"), List.of("fifo"));
        for (PolicyProvider p : providers) {
            engine.submit(new PolicyInstalled(p.declaration().create(Map.of()), p.declaration().name() + " test"));
        }
        for (int i = 1; i <= 4; i++) {
            engine.submit(new NodeAdded(new NodeSpec("n" + i, i <= 2 ? "r1" : "r2", Resources.of(800, 16384),
                    i == 4 ? Map.of("disk", "ssd") : Map.of())));
        }
        tokens = new Tokens("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
        reader = tokens.issue("reader/rita");
        operator = tokens.issue("operator/otto");
        admin = tokens.issue("admin/ada");
        agent = tokens.issue("agent/n1");
        audit = new AuditLog(auditFile, 100, System::currentTimeMillis);
        api = new Api(engine.loop, () -> providers, audit, () -> null, Duration.ofSeconds(10));
        stream = new EventStream(engine.loop, streamBuffer, "test", 8).start(100);
        servlet = new ApiServlet(api, new ApiAuth(tokens, false), stream, "test", lease);
        jetty = new Server();
        ServerConnector c = new ServerConnector(jetty);
        c.setHost("127.0.0.1");
        c.setPort(0);
        jetty.addConnector(c);
        ServletContextHandler ctx = new ServletContextHandler();
        ctx.setContextPath("/");
        ServletHolder h = new ServletHolder(servlet);
        h.setAsyncSupported(true);
        ctx.addServlet(h, Api.BASE + "/*");
        jetty.setHandler(ctx);
        jetty.start();
        base = URI.create("http://127.0.0.1:" + c.getLocalPort());
    }

    /** One answer: status, headers, body text. */
    record Reply(int status, HttpResponse<String> raw) {
        String body() {
            return raw.body();
        }

        JsonElement json() {
            return JsonParser.parseString(raw.body());
        }

        JsonObject object() {
            return json().getAsJsonObject();
        }

        String header(String name) {
            return raw.headers().firstValue(name).orElse(null);
        }

        @Override
        public String toString() {
            return status + " " + raw.body();
        }
    }

    Reply call(String method, String path, String token, String contentType, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(Api.BASE + path)).timeout(Duration.ofSeconds(20));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (contentType != null) {
            b.header("Content-Type", contentType);
        }
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
        return new Reply(r.statusCode(), r);
    }

    Reply get(String path, String token) throws Exception {
        return call("GET", path, token, null, null);
    }

    Reply send(String method, String path, String token, String json, String... headers) throws Exception {
        return call(method, path, token, "application/json", json, headers);
    }

    @Override
    public void close() throws Exception {
        stream.close();
        jetty.stop();
        engine.close();
        audit.close();
    }
}
