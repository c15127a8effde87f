package granary.http;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * One request as a route sees it: who made it, the path's parameters, the query, and the body
 * (already limited in size and checked to be JSON where the route takes one).
 *
 * @param identity the token's identity, {@code role/name}
 * @param role     what the identity may do
 * @param path     the path's named segments, {@code {id}} → value (decoded)
 * @param query    the query parameters (the first value of each)
 * @param headers  request headers the routes read ({@code If-Match}), lower-case names
 * @param body     the body's bytes, empty when there is none
 */
public record Call(String identity, ApiRole role, Map<String, String> path, Map<String, String> query,
                   Map<String, String> headers, byte[] body) {

    public String path(String name) {
        return path.get(name);
    }

    /** A query parameter, or {@code fallback} when absent or empty. */
    public String query(String name, String fallback) {
        String v = query.get(name);
        return v == null || v.isEmpty() ? fallback : v;
    }

    /** A boolean query parameter: absent is false; {@code true}/{@code false} only. */
    public boolean flag(String name) {
        String v = query.get(name);
        if (v == null) {
            return false;
        }
        if (v.equals("true") || v.isEmpty()) {
            return true;
        }
        if (v.equals("false")) {
            return false;
        }
        throw ApiException.badParameter(name, "'" + name + "' is true or false, got '" + v + "'");
    }

    /** A whole-number query parameter within [{@code min}, {@code max}], or {@code fallback}. */
    public int number(String name, int fallback, int min, int max) {
        String v = query.get(name);
        if (v == null || v.isEmpty()) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(v);
            if (n < min || n > max) {
                throw ApiException.badParameter(name, "'" + name + "' is between " + min + " and " + max + ", got " + n);
            }
            return n;
        } catch (NumberFormatException e) {
            throw ApiException.badParameter(name, "'" + name + "' is a whole number, got '" + v + "'");
        }
    }

    public String header(String lowerCaseName) {
        return headers.get(lowerCaseName);
    }

    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }
}
