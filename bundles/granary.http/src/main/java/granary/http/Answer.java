package granary.http;

import com.google.gson.JsonElement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a route answers: a status, a JSON body (or none), and headers. Errors are not answers but
 * {@link ApiException}s.
 */
public final class Answer {

    private final int status;
    private final JsonElement body;
    private final Map<String, String> headers = new LinkedHashMap<>();

    private Answer(int status, JsonElement body) {
        this.status = status;
        this.body = body;
    }

    public static Answer ok(JsonElement body) {
        return new Answer(200, body);
    }

    public static Answer created(JsonElement body, String location) {
        return new Answer(201, body).header("Location", location);
    }

    public Answer header(String name, String value) {
        headers.put(name, value);
        return this;
    }

    public int status() {
        return status;
    }

    public JsonElement body() {
        return body;
    }

    public Map<String, String> headers() {
        return headers;
    }
}
