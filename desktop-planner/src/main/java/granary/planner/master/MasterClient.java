package granary.planner.master;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;

/**
 * The planner's one way to a master: its HTTP API (docs/api.md), with a bearer token. Plain Java,
 * blocking calls: view models run them off the JavaFX thread. Every refusal comes back as an
 * {@link ApiError} carrying the master's problems.
 */
public final class MasterClient {

    /** Agents read per page (the API's largest page). */
    private static final int AGENTS_PAGE = 1000;

    /** The document in force: its text in its policy's format (docs/formats.md), its revision (ETag) and WorkerSpans (or null). */
    public record InForce(String tableJson, String revision, String workerSpans) {
    }

    /** One line of a dry run's diff: {@code added}, {@code removed} or {@code changed}, at a JSON path. */
    public record Change(String op, String path, String from, String to) {
        @Override
        public String toString() {
            return switch (op) {
                case "added" -> "+ " + path + " = " + to;
                case "removed" -> "- " + path + " (was " + from + ")";
                default -> "~ " + path + ": " + from + " -> " + to;
            };
        }
    }

    /** A dry run's or a load's answer: the revisions before and after, the diff, the policy's notes. */
    public record Outcome(boolean dryRun, String revision, String newRevision, List<Change> diff, List<String> notes) {
        public Outcome {
            diff = List.copyOf(diff);
            notes = List.copyOf(notes);
        }
    }

    private static final Duration TIMEOUT = Duration.ofSeconds(15);

    /** The header a read resource answers a table's WorkerSpans in (docs/api.md, "Resources policies declare"). */
    private static final String WORKER_SPANS = "Granary-Worker-Spans";

    private final URI base;
    private final URI root;
    private final String token;
    private final String document;
    private final HttpClient http;
    /** Found on first use; read and written only by the thread that calls (view models call from one background thread at a time). */
    private volatile Routes routes;

    /**
     * A client for the planner's document as {@link PlannerSettings#defaults()} names it.
     *
     * @param master the master's address, e.g. {@code http://127.0.0.1:7070} (the API is under {@code /api/v1})
     * @param token  a bearer token ({@code --issue-token=reader/NAME}, or admin to push), or null
     */
    public MasterClient(URI master, String token) {
        this(master, token, PlannerSettings.defaults().tableDocument());
    }

    /** @param document the document the planner edits, as a policy's read resource names it ({@code GET /policies}) */
    public MasterClient(URI master, String token, String document) {
        String s = master.toString();
        String trimmed = s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
        this.root = URI.create(trimmed);
        this.base = URI.create(trimmed + "/api/v1");
        this.token = token == null || token.isBlank() ? null : token.trim();
        this.document = document;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    public URI api() {
        return base;
    }

    /** {@code GET /status}: the keys of {@code granary:status}. */
    public JsonObject status() throws ApiError {
        return send(request("/status").GET()).json;
    }

    /**
     * Where the master serves the document the planner edits, as the policy that offers it declares
     * (docs/api.md, "Resources policies declare"): API paths such as {@code /api/v1/...}.
     *
     * @param policy the policy that offers it
     * @param read   its read resource ({@code GET}: the document in force and its revision)
     * @param write  the write resource at the same path ({@code PUT}), or null if the policy offers none
     * @param state  the reports resource that carries the document's revision, or null
     */
    public record Routes(String policy, String read, String write, String state) {
    }

    /**
     * The routes of the document named {@code document} on this master, found once in
     * {@code GET /policies}: an active policy's first, else any installed policy's.
     *
     * @throws ApiError 404 {@code not-offered} if no installed policy offers the document
     */
    public Routes routes() throws ApiError {
        Routes r = routes;
        if (r == null) {
            r = discover();
            routes = r;
        }
        return r;
    }

    private Routes discover() throws ApiError {
        JsonObject o = send(request("/policies").GET()).json;
        Routes found = null;
        JsonArray policies = o.has("policies") && o.get("policies").isJsonArray() ? o.getAsJsonArray("policies") : new JsonArray();
        for (JsonElement pe : policies) {
            JsonObject p = pe.getAsJsonObject();
            Routes r = offered(p);
            boolean active = p.has("active") && p.get("active").getAsBoolean();
            if (r != null && (found == null || active)) {
                found = r;
                if (active) {
                    break;
                }
            }
        }
        if (found == null) {
            throw new ApiError(404, "not-offered", "no policy installed on the master at " + base.getScheme() + "://" + base.getAuthority()
                    + " offers a " + document + " (GET /api/v1/policies lists what each policy offers)", List.of());
        }
        return found;
    }

    /** The routes of this client's document among what policy {@code p} declares, or null. */
    private Routes offered(JsonObject p) {
        JsonArray resources = p.has("resources") && p.get("resources").isJsonArray() ? p.getAsJsonArray("resources") : new JsonArray();
        String read = null;
        for (JsonElement e : resources) {
            JsonObject r = e.getAsJsonObject();
            if ("read".equals(text(r, "kind")) && document.equals(text(r, "document"))) {
                read = text(r, "href");
            }
        }
        if (read == null) {
            return null;
        }
        String write = null;
        String state = null;
        for (JsonElement e : resources) {
            JsonObject r = e.getAsJsonObject();
            if ("write".equals(text(r, "kind")) && read.equals(text(r, "href"))) {
                write = text(r, "href");
            } else if ("reports".equals(text(r, "kind")) && read.equals(text(r, "revisionOf"))) {
                state = text(r, "href");
            }
        }
        return new Routes(text(p, "name"), read, write, state);
    }

    /** {@code GET} of the document's read resource: the document in force. */
    public InForce table() throws ApiError {
        Answer a = rerouted(r -> send(at(r.read()).GET()));
        String etag = a.response.headers().firstValue("ETag").orElse("");
        return new InForce(a.body, unquote(etag), a.response.headers().firstValue(WORKER_SPANS).orElse(null));
    }

    /** {@code GET} of the reports resource that carries the document's revision: its reports, each under its name, and the revision. */
    public JsonObject tableState() throws ApiError {
        return rerouted(r -> send(at(needed(r.state(), "its state")).GET())).json;
    }

    /**
     * {@code PUT} of the document's write resource: loads a table, or with {@code dryRun} only
     * validates it and diffs it against the table in force.
     *
     * @param workerSpans null for none
     * @param ifMatch     the revision the draft was made from, or null: the master refuses the load with
     *                    {@code stale-revision} if the table changed since
     */
    public Outcome putTable(String tableJson, String workerSpans, String ifMatch, boolean dryRun) throws ApiError {
        JsonObject o = rerouted(r -> put(needed(r.write(), "a way to load it"), tableJson, workerSpans, ifMatch, dryRun)).json;
        List<Change> diff = new ArrayList<>();
        if (o.has("diff")) {
            for (JsonElement e : o.getAsJsonArray("diff")) {
                JsonObject d = e.getAsJsonObject();
                diff.add(new Change(text(d, "op"), text(d, "path"), text(d, "from"), text(d, "to")));
            }
        }
        List<String> notes = new ArrayList<>();
        if (o.has("notes") && o.get("notes").isJsonArray()) {
            o.getAsJsonArray("notes").forEach(n -> notes.add(n.getAsString()));
        }
        // a dry run answers revision (in force) and newRevision; a load previousRevision and revision (now in force)
        return dryRun ? new Outcome(true, text(o, "revision"), text(o, "newRevision"), diff, notes)
                : new Outcome(false, text(o, "previousRevision"), text(o, "revision"), diff, notes);
    }

    private Answer put(String href, String tableJson, String workerSpans, String ifMatch, boolean dryRun) throws ApiError {
        StringBuilder q = new StringBuilder(href).append("?dryRun=").append(dryRun);
        if (workerSpans != null && !workerSpans.isBlank()) {
            q.append("&workerSpans=").append(URLEncoder.encode(workerSpans, StandardCharsets.UTF_8));
        }
        HttpRequest.Builder b = at(q.toString()).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(tableJson, StandardCharsets.UTF_8));
        if (ifMatch != null) {
            b.header("If-Match", "\"" + ifMatch + "\"");
        }
        return send(b);
    }

    /** A call on the document's routes; a 404 on routes found earlier (the policy went) looks them up once again. */
    private Answer rerouted(Call call) throws ApiError {
        Routes known = routes;
        try {
            return call.on(routes());
        } catch (ApiError e) {
            if (known == null || e.status() != 404) {
                throw e;
            }
            routes = null;
            return call.on(routes());
        }
    }

    private interface Call {
        Answer on(Routes routes) throws ApiError;
    }

    private String needed(String href, String what) throws ApiError {
        if (href == null) {
            throw new ApiError(404, "not-offered", "the policy that offers the " + document + " on this master declares no "
                    + "resource for " + what + " (GET /api/v1/policies lists what each policy offers)", List.of());
        }
        return href;
    }

    /** One job of {@code GET /jobs}: its id, queue, and slots wanted and held. */
    public record JobSummary(String id, String queue, long desired, long granted) {
    }

    /**
     * {@code GET /jobs?state=waiting}: the first {@code limit} jobs that want slots and hold none (by id),
     * and how many there are in all.
     */
    public Page<JobSummary> waitingJobs(int limit) throws ApiError {
        JsonObject o = send(request("/jobs?state=waiting&limit=" + limit).GET()).json;
        List<JobSummary> out = new java.util.ArrayList<>();
        if (o.has("items") && o.get("items").isJsonArray()) {
            for (JsonElement e : o.getAsJsonArray("items")) {
                JsonObject j = e.getAsJsonObject();
                out.add(new JobSummary(text(j, "id"), text(j, "queue"),
                        j.has("desired") ? j.get("desired").getAsLong() : 0, j.has("granted") ? j.get("granted").getAsLong() : 0));
            }
        }
        long total = o.has("total") ? o.get("total").getAsLong() : out.size();
        return new Page<>(out, total);
    }

    /** A page of a list and the list's whole length. */
    public record Page<T>(List<T> items, long total) {
    }

    /**
     * {@code GET /agents}, every page: what each node's agent last reported (cpu and memory in use, and
     * why it is unhealthy), as the master keeps it (docs/agent.md, "What is reported").
     */
    public List<granary.planner.live.model.NodeReports.Report> agents() throws ApiError {
        List<granary.planner.live.model.NodeReports.Report> out = new ArrayList<>();
        long total = Long.MAX_VALUE;
        for (int offset = 0; offset < total && offset < 100_000; offset += AGENTS_PAGE) {
            JsonObject o = send(request("/agents?offset=" + offset + "&limit=" + AGENTS_PAGE).GET()).json;
            JsonArray items = o.has("items") && o.get("items").isJsonArray() ? o.getAsJsonArray("items") : new JsonArray();
            for (JsonElement e : items) {
                JsonObject a = e.getAsJsonObject();
                JsonObject used = a.has("used") && a.get("used").isJsonObject() ? a.getAsJsonObject("used") : null;
                out.add(new granary.planner.live.model.NodeReports.Report(text(a, "node"), text(a, "state"),
                        used != null && used.has("cpu") ? used.get("cpu").getAsLong() : -1,
                        used != null && used.has("mem") ? used.get("mem").getAsLong() : -1,
                        a.has("unhealthy") ? a.get("unhealthy").getAsString() : ""));
            }
            total = o.has("total") ? o.get("total").getAsLong() : 0;
            if (items.isEmpty()) {
                break;
            }
        }
        return out;
    }

    /** {@code GET /jobs/{id}/why}: why the job's units wait. */
    public JsonObject why(String jobId) throws ApiError {
        return send(request("/jobs/" + URLEncoder.encode(jobId, StandardCharsets.UTF_8).replace("+", "%20") + "/why").GET()).json;
    }

    /**
     * Opens {@code GET /stream} (Server-Sent Events); the caller reads and closes the body.
     *
     * @param lastEventId resume after this event, or null for a snapshot first
     */
    public InputStream stream(String lastEventId) throws ApiError {
        // no request timeout: the stream is meant to stay open (the connection timeout still applies)
        HttpRequest.Builder b = authorized("/stream").GET().header("Accept", "text/event-stream");
        if (lastEventId != null) {
            b.header("Last-Event-ID", lastEventId);
        }
        try {
            HttpResponse<InputStream> r = http.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
            if (r.statusCode() != 200) {
                String body;
                try (InputStream in = r.body()) {
                    body = new String(in.readNBytes(1 << 16), StandardCharsets.UTF_8);
                }
                throw problem(r.statusCode(), body);
            }
            return r.body();
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiError(0, "interrupted", "interrupted while connecting to " + base, List.of());
        }
    }

    private HttpRequest.Builder request(String path) {
        return authorized(path).timeout(TIMEOUT).header("Accept", "application/json");
    }

    /** A request to an API path as the master gives it ({@code /api/v1/...}), relative to the master's address. */
    private HttpRequest.Builder at(String href) {
        return authorized(URI.create(root + href)).timeout(TIMEOUT).header("Accept", "application/json");
    }

    private HttpRequest.Builder authorized(String path) {
        return authorized(URI.create(base + path));
    }

    private HttpRequest.Builder authorized(URI uri) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri);
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return b;
    }

    private record Answer(HttpResponse<String> response, String body, JsonObject json) {
    }

    private Answer send(HttpRequest.Builder b) throws ApiError {
        HttpResponse<String> r;
        try {
            r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ApiError(0, "interrupted", "interrupted while calling " + base, List.of());
        }
        if (r.statusCode() / 100 != 2) {
            throw problem(r.statusCode(), r.body());
        }
        try {
            JsonElement e = JsonParser.parseString(r.body());
            return new Answer(r, r.body(), e.isJsonObject() ? e.getAsJsonObject() : new JsonObject());
        } catch (JsonParseException e) {
            throw new ApiError(r.statusCode(), "bad-answer", "the master at " + base + " answered " + r.statusCode()
                    + " with something that is not JSON: " + e.getMessage(), List.of());
        }
    }

    /** A failure to reach the master in a planner's words; what Java said goes to the details line. */
    private ApiError unreachable(IOException e) {
        String master = base.getScheme() + "://" + base.getAuthority();
        String words;
        if (e instanceof java.net.ConnectException) {
            words = "the master at " + master + " is not reachable: nothing answers there (is it running, and is this its address and port?)";
        } else if (e instanceof java.net.http.HttpTimeoutException) {
            words = "the master at " + master + " did not answer within " + TIMEOUT.toSeconds() + " s";
        } else if (e instanceof java.net.UnknownHostException) {
            words = "there is no host " + base.getHost() + ": check the master's address";
        } else if (e instanceof javax.net.ssl.SSLException) {
            words = "the secure connection to " + master + " failed (is it https, with a certificate this machine trusts?)";
        } else {
            words = "the master at " + master + " could not be reached";
        }
        String cause = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
        return new ApiError(0, "unreachable", words, List.of(), cause);
    }

    /** Reads problem JSON (RFC 9457); anything else is quoted as it came. */
    static ApiError problem(int status, String body) {
        try {
            JsonObject o = JsonParser.parseString(body).getAsJsonObject();
            String type = text(o, "type");
            type = type == null ? "error" : type.substring(type.lastIndexOf('/') + 1);
            String detail = text(o, "detail");
            List<ApiError.Item> items = new ArrayList<>();
            if (o.has("errors") && o.get("errors").isJsonArray()) {
                JsonArray a = o.getAsJsonArray("errors");
                for (JsonElement e : a) {
                    JsonObject p = e.getAsJsonObject();
                    items.add(new ApiError.Item(text(p, "subject"), text(p, "field"), text(p, "message")));
                }
            }
            return new ApiError(status, type, detail == null ? "HTTP " + status : detail, items);
        } catch (RuntimeException e) {
            String shown = body == null ? "" : body.length() > 200 ? body.substring(0, 200) + "..." : body;
            return new ApiError(status, "error", "HTTP " + status + ": " + shown.strip(), List.of());
        }
    }

    private static String text(JsonObject o, String key) {
        JsonElement e = o.get(key);
        if (e == null || e.isJsonNull()) {
            return null;
        }
        return e.isJsonPrimitive() ? e.getAsString() : e.toString();
    }

    private static String unquote(String etag) {
        String t = etag.trim();
        if (t.startsWith("W/")) {
            t = t.substring(2);
        }
        return t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"") ? t.substring(1, t.length() - 1) : t;
    }
}
