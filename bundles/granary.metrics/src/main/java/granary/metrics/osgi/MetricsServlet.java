package granary.metrics.osgi;

import granary.metrics.GranaryMetrics;
import granary.metrics.ScrapeAccess;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/** {@code GET /metrics}: the Prometheus text format, after the access check (401 with a missing or wrong token). */
final class MetricsServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;
    private final transient GranaryMetrics metrics;
    private transient volatile ScrapeAccess access;

    MetricsServlet(GranaryMetrics metrics, ScrapeAccess access) {
        this.metrics = metrics;
        this.access = access;
    }

    void access(ScrapeAccess value) {
        this.access = value;
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        if (!access.permits(req.getHeader("Authorization"))) {
            resp.setHeader("WWW-Authenticate", "Bearer realm=\"granary metrics\"");
            resp.setContentType("text/plain; charset=utf-8");
            resp.setStatus(401);
            resp.getWriter().write("401 Unauthorized: this runtime's /metrics needs Authorization: Bearer <token> "
                    + "(Config Admin PID granary.metrics, option token)\n");
            return;
        }
        // the whole scrape first: a failure half-way is a 500, not a truncated 200
        ByteArrayOutputStream body = new ByteArrayOutputStream(64 * 1024);
        metrics.write(body);
        resp.setStatus(200);
        resp.setContentType(GranaryMetrics.CONTENT_TYPE);
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(body.size());
        try (OutputStream out = resp.getOutputStream()) {
            body.writeTo(out);
        }
    }
}
