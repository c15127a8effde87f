package granary.http;

import com.google.gson.JsonObject;
import granary.api.model.Text;
import java.nio.charset.StandardCharsets;

/**
 * The body of every error the HTTP server answers by itself — a path nothing serves, a method a
 * resource does not take, a request it could not read as HTTP — as problem JSON (RFC 9457), the
 * form the API and the wire answer in (docs/security.md, "Errors and logs"). What the server said
 * and the path are echoed escaped and cut; never a class name or a trace.
 */
public final class ErrorPages {

    public static final String CONTENT_TYPE = "application/problem+json";

    private ErrorPages() {
    }

    /**
     * The problem for {@code status} at {@code path} ("" when the request was not read far enough to
     * have one); {@code reason} is what the server said of a request it could not read (null if none).
     */
    public static byte[] problem(int status, String path, String reason) {
        JsonObject o = new JsonObject();
        o.addProperty("type", "/api/v1/problems/" + type(status));
        o.addProperty("title", title(status));
        o.addProperty("status", status);
        o.addProperty("detail", detail(status, path, reason));
        if (!path.isEmpty()) {
            o.addProperty("instance", Text.escape(path));
        }
        return Json.write(o).getBytes(StandardCharsets.UTF_8);
    }

    private static String type(int status) {
        return switch (status) {
            case 404 -> "not-found";
            case 405 -> "method-not-allowed";
            case 408 -> "timeout";
            case 413 -> "payload-too-large";
            case 414 -> "uri-too-long";
            case 431 -> "headers-too-large";
            case 505 -> "http-version-not-supported";
            default -> status >= 500 ? "internal" : "bad-request";
        };
    }

    private static String title(int status) {
        return switch (status) {
            case 404 -> "Not found";
            case 405 -> "Method not allowed";
            case 408 -> "Request timeout";
            case 413 -> "Body too large";
            case 414 -> "Request URI too long";
            case 431 -> "Request headers too large";
            case 505 -> "HTTP version not supported";
            default -> status >= 500 ? "The server failed" : "Bad request";
        };
    }

    private static String detail(int status, String path, String reason) {
        String what = path.isEmpty() ? "the request" : "the request to " + Text.quote(path);
        return switch (status) {
            case 404 -> "nothing is served at " + Text.quote(path) + "; the API is under " + Api.BASE
                    + " (GET " + Api.BASE + "/openapi.json lists it), the protocol under /protocol/v1";
            case 405 -> Text.quote(path) + " does not take this method";
            case 414 -> "the request line is longer than this server reads; send parameters in the body";
            case 431 -> "the request's headers are larger than this server reads";
            case 505 -> "this server speaks HTTP/1.1" + (reason == null || reason.isBlank() ? "" : " (" + Text.escape(reason) + ")");
            default -> status >= 500 ? what + " failed; the master's log says why"
                    : reason == null || reason.isBlank() ? what + " was refused (HTTP " + status + ")"
                    : what + " could not be read as HTTP: " + Text.escape(reason);
        };
    }
}
