package granary.api.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import granary.api.model.InvalidRequestException;

/**
 * An HTTP resource a policy offers under the API's base path (docs/api.md, "Resources policies
 * declare"), so that the HTTP API serves it, describes it in its OpenAPI and checks its role without
 * naming the policy. Four kinds:
 * <ul>
 *   <li>{@link #read}: {@code GET path} answers a JSON document of the installed policy (its settings
 *       in force, in their file format), with headers; 404 while it has none;</li>
 *   <li>{@link #write}: {@code PUT path} loads new settings from the request body through the
 *       policy's own loader (the one its console command uses), validated first, diffed against the
 *       read resource of the same path when there is one, applied between two decisions;</li>
 *   <li>{@link #reports}: {@code GET path} answers some of the policy's reports in one object;</li>
 *   <li>{@link #fields}: adds top-level fields to the API's own answer at {@code GET path} (a list the
 *       API serves anyway, that a policy can say more about).</li>
 * </ul>
 * Readers run on the engine thread and must only read; loaders run off it and may parse at length.
 */
public final class ResourceSpec {

    /** What the resource does. */
    public enum Kind { READ, WRITE, REPORTS, FIELDS }

    /** A query parameter: name, OpenAPI type ({@code string}, {@code integer}, {@code boolean}) and meaning. */
    public record Param(String name, String type, String description) {
    }

    /**
     * A JSON document and the headers that go with it (other than {@code ETag}, which the API derives
     * from the document and its headers).
     */
    public record Document(String json, Map<String, String> headers) {
        public Document {
            Objects.requireNonNull(json, "json");
            headers = Map.copyOf(new TreeMap<>(headers));
        }

        public static Document of(String json) {
            return new Document(json, Map.of());
        }
    }

    /**
     * What a {@link #write} read from a request: the policy's new settings (handed over with a
     * {@code PolicyReconfigured} event, as its console command does), the document as the read
     * resource will answer it afterwards (for the diff and the new revision; null when there is no read
     * resource), and facts for the answer ({@code leaves} of a queue tree).
     */
    public record Loaded(Invocation invocation, Document document, Map<String, List<String>> facts) {
        public Loaded {
            if (invocation == null || !invocation.changesState()) {
                throw new IllegalArgumentException("a loaded resource carries a reconfigure invocation");
            }
            facts = Map.copyOf(facts);
        }
    }

    /** Reads the document of the installed policy on the engine thread; null when it has none. */
    @FunctionalInterface
    public interface Reader<P extends Policy> {
        Document read(P policy, EngineView view);
    }

    /**
     * Reads new settings from a request body, off the engine thread.
     *
     * @param body   the request body (a JSON document)
     * @param source what to call it in problems ({@code request body})
     * @param query  the request's query parameters
     * @throws InvalidRequestException naming every problem; a problem whose subject is {@code parameter <name>}
     *                                 is about a query parameter
     */
    @FunctionalInterface
    public interface Loader {
        Loaded load(String body, String source, Map<String, String> query);
    }

    private final Kind kind;
    private final String path;
    private final String id;
    private final String summary;
    private final String document;
    private final List<Param> params;
    private final Class<? extends Policy> type;
    private final Reader<Policy> reader;
    private final Loader loader;
    private final List<String> reports;
    private final String revisionOf;

    private ResourceSpec(Kind kind, String path, String id, String summary, String document, List<Param> params,
                         Class<? extends Policy> type, Reader<Policy> reader, Loader loader, List<String> reports) {
        this(kind, path, id, summary, document, params, type, reader, loader, reports, null);
    }

    private ResourceSpec(Kind kind, String path, String id, String summary, String document, List<Param> params,
                         Class<? extends Policy> type, Reader<Policy> reader, Loader loader, List<String> reports,
                         String revisionOf) {
        if (path == null || !path.matches("(/[a-z][a-z0-9-]*)+")) {
            throw new IllegalArgumentException("a resource path is '/' then lower-case segments, got '" + path + "'");
        }
        if (id == null || !id.matches("[a-z][A-Za-z0-9]*")) {
            throw new IllegalArgumentException("resource " + path + ": an operation id is camelCase, got '" + id + "'");
        }
        this.kind = kind;
        this.path = path;
        this.id = id;
        this.summary = summary;
        this.document = document;
        this.params = List.copyOf(params);
        this.type = type;
        this.reader = reader;
        this.loader = loader;
        this.reports = List.copyOf(reports);
        this.revisionOf = revisionOf;
    }

    /**
     * {@code GET path}: a document of the installed policy.
     *
     * @param document what the document is, for messages: {@code quota table}
     */
    @SuppressWarnings("unchecked")
    public static <P extends Policy> ResourceSpec read(String path, String id, String summary, String document, Class<P> type,
                                                       Reader<P> reader) {
        Reader<Policy> any = (p, v) -> reader.read(type.cast(p), v);
        return new ResourceSpec(Kind.READ, path, id, summary, document, List.of(), type, any, null, List.of());
    }

    /**
     * {@code PUT path}: new settings from the body. The API adds the parameter {@code dryRun}
     * (validate and diff only); {@code params} are the loader's own.
     *
     * @param document what the body is, for messages and the OpenAPI description: {@code quota table}
     */
    public static ResourceSpec write(String path, String id, String summary, String document, List<Param> params, Loader loader) {
        Objects.requireNonNull(loader, "loader");
        return new ResourceSpec(Kind.WRITE, path, id, summary, document, params, null, null, loader, List.of());
    }

    /**
     * {@code GET path}: the named reports of the policy in one object, each under its name; their
     * parameters are query parameters. An empty list means every report.
     */
    public static ResourceSpec reports(String path, String id, String summary, List<String> reportNames) {
        return new ResourceSpec(Kind.REPORTS, path, id, summary, "reports", List.of(), null, null, null, reportNames);
    }

    /** Top-level fields added to the API's own answer at {@code GET path}: the reader's document is a JSON object. */
    @SuppressWarnings("unchecked")
    public static <P extends Policy> ResourceSpec fields(String path, String summary, Class<P> type, Reader<P> reader) {
        Reader<Policy> any = (p, v) -> reader.read(type.cast(p), v);
        return new ResourceSpec(Kind.FIELDS, path, "fields", summary, "fields", List.of(), type, any, null, List.of());
    }

    /**
     * The same {@link Kind#REPORTS} resource, its answer with a field {@code revision}: the revision of
     * the document of the policy's read resource at {@code readPath} ({@code none} while there is none),
     * so that a client can tell which settings the reports were read under.
     */
    public ResourceSpec withRevisionOf(String readPath) {
        if (kind != Kind.REPORTS) {
            throw new IllegalStateException("resource " + this + ": only a reports resource carries a revision");
        }
        return new ResourceSpec(kind, path, id, summary, document, params, type, reader, loader, reports, readPath);
    }

    /** The path of the read resource whose revision a reports resource carries, or null. */
    public String revisionOf() {
        return revisionOf;
    }

    /** A query parameter of a {@link #write}. */
    public static Param param(String name, String type, String description) {
        return new Param(name, type, description);
    }

    public Kind kind() {
        return kind;
    }

    /** The path under the API's base, {@code /quota}. */
    public String path() {
        return path;
    }

    /** {@code GET} or {@code PUT}. */
    public String method() {
        return kind == Kind.WRITE ? "PUT" : "GET";
    }

    /** The OpenAPI operationId. */
    public String id() {
        return id;
    }

    public String summary() {
        return summary;
    }

    /** What the document is: {@code quota table}. */
    public String document() {
        return document;
    }

    /** The query parameters of a write (besides {@code dryRun}). */
    public List<Param> params() {
        return params;
    }

    /** The reports of a {@link Kind#REPORTS} resource; empty: all. */
    public List<String> reports() {
        return reports;
    }

    /**
     * Reads the document of a {@link Kind#READ} or {@link Kind#FIELDS} resource; call on the engine
     * thread with the installed policy of the declaration.
     *
     * @throws IllegalStateException if the resource is of another kind or the policy of another type
     */
    public Document read(Policy installed, EngineView view) {
        if (reader == null) {
            throw new IllegalStateException("resource " + path + " is a " + kind + ", not read");
        }
        if (!type.isInstance(installed)) {
            throw new IllegalStateException("resource " + path + ": no policy of type " + type.getSimpleName() + " is installed");
        }
        return reader.read(installed, view);
    }

    /** Loads a {@link Kind#WRITE} resource's body; see {@link Loader#load}. */
    public Loaded load(String body, String source, Map<String, String> query) {
        if (loader == null) {
            throw new IllegalStateException("resource " + path + " is a " + kind + ", not a write");
        }
        return loader.load(body, source, query);
    }

    /** {@code GET /quota}. */
    @Override
    public String toString() {
        return method() + " " + path;
    }

    /** Every problem of a set of resources: two of one method and path. */
    static void requireDistinct(String policy, List<ResourceSpec> resources) {
        List<String> seen = new ArrayList<>();
        for (ResourceSpec r : resources) {
            String key = r.method() + " " + r.path() + (r.kind == Kind.FIELDS ? " fields" : "");
            if (seen.contains(key)) {
                throw new IllegalArgumentException("policy " + policy + ": resource " + key + " is declared twice");
            }
            seen.add(key);
        }
    }
}
