package granary.http.jetty;

import granary.http.ErrorPages;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's own answers — to a request it could not read as HTTP (a malformed request line or header,
 * 400), a request line too long (414), headers too large (431), a request no context takes — as
 * problem JSON instead of Jetty's HTML page (docs/security.md, "Errors and logs"). These come before
 * any servlet runs, so the whiteboard's error pages never see them; this is the server's error
 * handler. Whatever Accept the client sent: a client of this server reads JSON.
 */
public final class ProblemErrorHandler extends ErrorHandler {

    @Override
    protected void generateResponse(Request request, Response response, int code, String message, Throwable cause,
            Callback callback) {
        byte[] body = ErrorPages.problem(code, pathOf(request), message);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, ErrorPages.CONTENT_TYPE);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    /** The request's path; "" for one Jetty could not read, which it names with a placeholder path of its own. */
    private static String pathOf(Request request) {
        HttpURI uri = request.getHttpURI();
        String path = uri == null ? null : uri.getPath();
        return path == null || path.equals("/badURI") || path.equals("/badMessage") ? "" : path;
    }
}
