package granary.http;

import com.google.gson.JsonObject;
import granary.api.model.Text;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The runtime's error pages as problem JSON (RFC 9457) instead of the HTTP server's HTML: a path
 * nothing serves (404), a method a resource does not take, a failure the container caught
 * (docs/security.md, "Errors and logs"). Registered on the whiteboard for 4xx and 5xx, and as the
 * default servlet (pattern {@code /}: whatever no other servlet serves is a 404 here); the
 * message the container had is echoed escaped and cut, never a class name or a trace.
 */
public final class ErrorPageServlet extends HttpServlet {

    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        Object code = req.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        // no error dispatch: called as the default servlet, for a path nothing else serves
        int status = code instanceof Integer i ? i : 404;
        Object uri = req.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        String path = uri == null ? req.getRequestURI() : uri.toString();
        JsonObject o = new JsonObject();
        o.addProperty("type", "/api/v1/problems/" + type(status));
        o.addProperty("title", title(status));
        o.addProperty("status", status);
        o.addProperty("detail", detail(status, path));
        o.addProperty("instance", Text.escape(path));
        if (resp.isCommitted()) {
            return;
        }
        resp.setStatus(status);
        resp.setContentType("application/problem+json");
        resp.getOutputStream().write(Json.write(o).getBytes(StandardCharsets.UTF_8));
    }

    private static String type(int status) {
        return switch (status) {
            case 404 -> "not-found";
            case 405 -> "method-not-allowed";
            case 413 -> "payload-too-large";
            case 414 -> "uri-too-long";
            case 431 -> "headers-too-large";
            default -> status >= 500 ? "internal" : "bad-request";
        };
    }

    private static String title(int status) {
        return switch (status) {
            case 404 -> "Not found";
            case 405 -> "Method not allowed";
            case 413 -> "Body too large";
            case 414 -> "Request URI too long";
            case 431 -> "Request headers too large";
            default -> status >= 500 ? "The server failed" : "Bad request";
        };
    }

    private static String detail(int status, String path) {
        return switch (status) {
            case 404 -> "nothing is served at " + Text.quote(path) + "; the API is under " + Api.BASE
                    + " (GET " + Api.BASE + "/openapi.json lists it), the protocol under /protocol/v1";
            case 405 -> Text.quote(path) + " does not take this method";
            default -> status >= 500 ? "the request to " + Text.quote(path) + " failed; the master's log says why"
                    : "the request to " + Text.quote(path) + " was refused (HTTP " + status + ")";
        };
    }
}
