package granary.http;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The OpenAPI 3.1 description of the API, written from the route table the servlet dispatches on
 * (docs/api.md, "OpenAPI"): a route cannot be served without being described, nor described
 * without being served. {@code OpenApiTest} calls every described operation on a real Jetty.
 */
public final class OpenApi {

    private OpenApi() {
    }

    /** Routes the servlet serves itself, outside the table (the stream and this description). */
    static final List<Route> EXTRA = List.of(
            Route.get("/stream", ApiRole.READER).id("stream")
                    .summary("The live allocation stream: Server-Sent Events of grants, revocations, releases, node and group usage, policy changes; "
                            + "reconnect with Last-Event-ID")
                    .param("types", "string", "only these event types, comma-separated (grant, revoke, release, nodes, groups, policies)")
                    .answers(200, 503).handle(c -> null),
            Route.get("/openapi.json", ApiRole.READER).id("openApi").summary("This description").handle(c -> null));

    public static JsonObject describe(List<Route> routes, String version) {
        JsonObject doc = new JsonObject();
        doc.addProperty("openapi", "3.1.0");
        JsonObject info = new JsonObject();
        info.addProperty("title", "Granary HTTP API");
        info.addProperty("version", version);
        info.addProperty("description", "Operators' API of the Granary master: read the cluster, submit and manage work, "
                + "load the settings the installed policies declare, swap policies, follow allocations live. Errors are RFC 9457 problem JSON.");
        doc.add("info", info);
        JsonArray servers = new JsonArray();
        JsonObject server = new JsonObject();
        server.addProperty("url", Api.BASE);
        servers.add(server);
        doc.add("servers", servers);

        Map<String, JsonObject> paths = new TreeMap<>();
        for (Route r : concat(routes)) {
            JsonObject path = paths.computeIfAbsent(r.template(), k -> new JsonObject());
            path.add(r.method().toLowerCase(java.util.Locale.ROOT), operation(r));
        }
        JsonObject p = new JsonObject();
        paths.forEach(p::add);
        doc.add("paths", p);

        JsonObject components = new JsonObject();
        JsonObject schemes = new JsonObject();
        JsonObject bearer = new JsonObject();
        bearer.addProperty("type", "http");
        bearer.addProperty("scheme", "bearer");
        bearer.addProperty("description", "a token of reader/NAME, operator/NAME or admin/NAME, issued with --issue-token");
        schemes.add("bearer", bearer);
        components.add("securitySchemes", schemes);
        JsonObject schemas = new JsonObject();
        schemas.add("Problem", problemSchema());
        components.add("schemas", schemas);
        doc.add("components", components);
        JsonArray security = new JsonArray();
        JsonObject req = new JsonObject();
        req.add("bearer", new JsonArray());
        security.add(req);
        doc.add("security", security);
        return doc;
    }

    private static List<Route> concat(List<Route> routes) {
        List<Route> all = new java.util.ArrayList<>(routes);
        all.addAll(EXTRA);
        return all;
    }

    private static JsonObject operation(Route r) {
        JsonObject op = new JsonObject();
        op.addProperty("operationId", r.id());
        op.addProperty("summary", r.summary());
        op.addProperty("x-granary-role", r.role().wire());
        JsonArray params = new JsonArray();
        for (String seg : r.segments()) {
            if (seg.startsWith("{")) {
                params.add(param(seg.substring(1, seg.length() - 1), "path", "string", "the " + seg.substring(1, seg.length() - 1), true));
            }
        }
        for (Route.Param q : r.query()) {
            params.add(param(q.name(), "query", q.type(), q.description(), false));
        }
        if (!params.isEmpty()) {
            op.add("parameters", params);
        }
        if (r.body() != null) {
            JsonObject body = new JsonObject();
            body.addProperty("description", r.body());
            body.addProperty("required", true);
            JsonObject content = new JsonObject();
            JsonObject json = new JsonObject();
            JsonObject schema = new JsonObject();
            schema.addProperty("type", r.body().startsWith("a job object") ? "array" : "object");
            if (r.body().startsWith("a job object")) {
                schema.remove("type");
                JsonArray oneOf = new JsonArray();
                JsonObject obj = new JsonObject();
                obj.addProperty("type", "object");
                JsonObject arr = new JsonObject();
                arr.addProperty("type", "array");
                oneOf.add(obj);
                oneOf.add(arr);
                schema.add("oneOf", oneOf);
            }
            json.add("schema", schema);
            content.add("application/json", json);
            body.add("content", content);
            op.add("requestBody", body);
        }
        JsonObject responses = new JsonObject();
        for (int status : r.statuses()) {
            responses.add(Integer.toString(status), response(status, r));
        }
        responses.add("401", response(401, r));
        responses.add("403", response(403, r));
        if (!r.method().equals("GET")) {
            // every write: a standby points at the leader, or says none is known (docs/ha.md, "The API of a standby")
            responses.add("307", response(307, r));
            responses.add("503", response(503, r));
        }
        op.add("responses", responses);
        return op;
    }

    private static JsonObject param(String name, String in, String type, String description, boolean required) {
        JsonObject p = new JsonObject();
        p.addProperty("name", name);
        p.addProperty("in", in);
        p.addProperty("required", required);
        p.addProperty("description", description);
        JsonObject schema = new JsonObject();
        schema.addProperty("type", type);
        p.add("schema", schema);
        return p;
    }

    private static JsonObject response(int status, Route r) {
        JsonObject o = new JsonObject();
        o.addProperty("description", switch (status) {
            case 200 -> "OK";
            case 201 -> "Created";
            case 400 -> "Invalid request: problem JSON naming every problem; nothing changed";
            case 401 -> "No valid token";
            case 403 -> "The token's role may not do this";
            case 404 -> "No such resource";
            case 409 -> "Conflict with the state in force (exists, stale revision, policy not installed)";
            case 413 -> "Body larger than 1 MiB";
            case 415 -> "Body is not application/json";
            case 307 -> "This master is a standby: Location names the leader, to send the write to; nothing changed";
            case 503 -> r.method().equals("GET") ? "The scheduler did not answer in time, or too many subscribers"
                    : "The scheduler did not answer in time, or this master does not lead now (a standby that knows no"
                    + " leader, a leader whose lease lapsed); see the problem's type";
            default -> "Status " + status;
        });
        JsonObject content = new JsonObject();
        JsonObject media = new JsonObject();
        JsonObject schema = new JsonObject();
        if (status >= 400 || status == 307) {
            schema.addProperty("$ref", "#/components/schemas/Problem");
            media.add("schema", schema);
            content.add("application/problem+json", media);
        } else if (r.id().equals("stream")) {
            schema.addProperty("type", "string");
            media.add("schema", schema);
            content.add("text/event-stream", media);
        } else {
            schema.addProperty("type", "object");
            media.add("schema", schema);
            content.add("application/json", media);
        }
        o.add("content", content);
        return o;
    }

    private static JsonObject problemSchema() {
        JsonObject s = new JsonObject();
        s.addProperty("type", "object");
        JsonObject props = new JsonObject();
        for (String[] f : new String[][] {{"type", "string"}, {"title", "string"}, {"status", "integer"}, {"detail", "string"},
                {"instance", "string"}, {"errors", "array"}}) {
            JsonObject t = new JsonObject();
            t.addProperty("type", f[1]);
            props.add(f[0], t);
        }
        s.add("properties", props);
        JsonArray required = new JsonArray();
        for (String r : new String[] {"type", "title", "status", "detail"}) {
            required.add(r);
        }
        s.add("required", required);
        return s;
    }
}
