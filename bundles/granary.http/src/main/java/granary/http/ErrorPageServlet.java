package granary.http;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * The runtime's error pages as problem JSON (RFC 9457) instead of the HTTP server's HTML: a path
 * nothing serves (404), a method a resource does not take, a failure the container caught
 * (docs/security.md, "Errors and logs"). Registered on the whiteboard for 4xx and 5xx, and as the
 * default servlet (pattern {@code /}: whatever no other servlet serves is a 404 here). The body is
 * {@link ErrorPages}'s, as for the errors the server answers before any servlet.
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
        if (resp.isCommitted()) {
            return;
        }
        resp.setStatus(status);
        resp.setContentType(ErrorPages.CONTENT_TYPE);
        resp.getOutputStream().write(ErrorPages.problem(status, path, null));
    }
}
