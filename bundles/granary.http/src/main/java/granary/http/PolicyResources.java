package granary.http;

import static granary.http.ApiRole.ADMIN;
import static granary.http.ApiRole.READER;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import granary.api.event.PolicyReconfigured;
import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;
import granary.api.spi.EngineView;
import granary.api.spi.Policy;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;
import granary.api.spi.ReportSpec;
import granary.api.spi.ResourceSpec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The HTTP resources the installed policies declare (docs/api.md, "Resources policies declare"),
 * served as routes of the API without naming a policy: reads answer the policy's document with an
 * {@code ETag} of its revision; writes load the body through the policy's own loader, check
 * {@code If-Match}, diff against the document in force and hand the settings over as a
 * {@code PolicyReconfigured} event; report resources answer reports; field resources add to the API's
 * own answer at their path. The routes are made from the declarations at each request, so a policy
 * bundle installed or stopped at run time brings or takes its resources.
 */
final class PolicyResources {

    private final Supplier<Collection<PolicyProvider>> providers;
    private final Engine engine;
    private final PolicyReports reports;
    /** The API's lock for writes that read the state in force, check it and change it. */
    private final Object writes;

    PolicyResources(Supplier<Collection<PolicyProvider>> providers, Engine engine, PolicyReports reports, Object writes) {
        this.providers = providers;
        this.engine = engine;
        this.reports = reports;
        this.writes = writes;
    }

    /** The routes of every declared resource but field resources, each once (the first declaration of a path wins). */
    List<Route> routes(List<Route> core) {
        List<Route> out = new ArrayList<>();
        for (PolicyProvider p : providers.get()) {
            PolicyDeclaration d = p.declaration();
            for (ResourceSpec r : d.resources()) {
                if (r.kind() != ResourceSpec.Kind.FIELDS && !taken(core, r) && !taken(out, r)) {
                    out.add(route(d, r));
                }
            }
        }
        return out;
    }

    private static boolean taken(List<Route> routes, ResourceSpec r) {
        return routes.stream().anyMatch(x -> x.method().equals(r.method()) && x.template().equals(r.path()));
    }

    /** Adds the fields the policies in {@code view} declare for {@code GET path} to {@code answer}; engine thread. */
    void addFields(String path, EngineView view, JsonObject answer) {
        for (PolicyProvider p : providers.get()) {
            PolicyDeclaration d = p.declaration();
            Policy installed = view.policy(d.name());
            for (ResourceSpec r : d.resources()) {
                ResourceSpec.Document doc = r.kind() == ResourceSpec.Kind.FIELDS && r.path().equals(path) && installed != null
                        ? r.read(installed, view) : null;
                if (doc != null) {
                    Json.read(doc.json(), "policy " + d.name()).getAsJsonObject().entrySet()
                            .forEach(e -> answer.add(e.getKey(), e.getValue()));
                }
            }
        }
    }

    private Route route(PolicyDeclaration d, ResourceSpec r) {
        return switch (r.kind()) {
            case READ -> Route.get(r.path(), READER).id(r.id()).summary(r.summary()).answers(200, 404)
                    .handle(c -> read(d, r));
            case REPORTS -> reportsRoute(d, r);
            case WRITE -> writeRoute(d, r);
            case FIELDS -> throw new IllegalStateException("field resources are no routes");
        };
    }

    private Route reportsRoute(PolicyDeclaration d, ResourceSpec r) {
        Route.Builder b = Route.get(r.path(), READER).id(r.id()).summary(r.summary()).answers(200, 400, 404);
        List<ReportSpec> served = served(d, r);
        for (ReportSpec s : served) {
            s.parameters().forEach(p -> b.param(p.name(), "string", p.description() + " (report " + s.name() + ")"));
        }
        return b.handle(c -> {
            JsonObject o = new JsonObject();
            for (ReportSpec s : served) {
                o.add(s.name(), reports.read(engine, d.name(), s.name(), c));
            }
            if (r.revisionOf() != null) {
                ResourceSpec read = readResource(d, r.revisionOf());
                o.addProperty("revision", revision(read == null ? null : inForce(d, read)));
            }
            return Answer.ok(o);
        });
    }

    private static List<ReportSpec> served(PolicyDeclaration d, ResourceSpec r) {
        return d.reports().stream().filter(s -> r.reports().isEmpty() || r.reports().contains(s.name())).toList();
    }

    private Route writeRoute(PolicyDeclaration d, ResourceSpec r) {
        Route.Builder b = Route.put(r.path(), ADMIN).id(r.id()).summary(r.summary())
                .param("dryRun", "boolean", "validate" + (readResource(d, r.path()) != null ? " and diff" : "") + " only; change nothing");
        r.params().forEach(p -> b.param(p.name(), p.type(), p.description()));
        return b.body("a " + r.document()).answers(200, 400, 409, 413, 415).handle(c -> write(d, r, c));
    }

    private Answer read(PolicyDeclaration d, ResourceSpec r) {
        ResourceSpec.Document doc = inForce(d, r);
        if (doc == null) {
            throw ApiException.notFound(r.document(), "no " + r.document() + " is in force (policy " + d.name()
                    + " is not installed or has none)");
        }
        Answer a = Answer.ok(Json.read(doc.json(), r.document() + " in force"));
        doc.headers().forEach(a::header);
        return a.header("ETag", "\"" + revision(doc) + "\"");
    }

    /** The document of the installed policy, or null when it has none or is not installed. */
    private ResourceSpec.Document inForce(PolicyDeclaration d, ResourceSpec read) {
        return engine.query(v -> {
            Policy p = v.policy(d.name());
            return p == null ? null : read.read(p, v);
        });
    }

    private Answer write(PolicyDeclaration d, ResourceSpec r, Call c) {
        boolean dryRun = c.flag("dryRun");
        ResourceSpec read = readResource(d, r.path());
        synchronized (writes) {
            boolean installed = engine.query(v -> v.policy(d.name()) != null);
            if (!installed) {
                throw ApiException.conflict("policy-not-installed", "policy " + d.name() + " is not installed: no "
                        + r.document() + " can be loaded (GET /api/v1/policies lists what is)");
            }
            ResourceSpec.Document before = read == null ? null : inForce(d, read);
            String beforeRev = revision(before);
            String ifMatch = c.header("if-match");
            if (read != null && ifMatch != null && !ifMatch.equals("*") && !unquote(ifMatch).equals(beforeRev)) {
                throw ApiException.conflict("stale-revision", "the " + r.document() + " in force is revision " + beforeRev
                        + ", not " + unquote(ifMatch) + ": someone changed it since you read it; read it again (GET "
                        + Api.BASE + r.path() + ")");
            }
            ResourceSpec.Loaded loaded = load(r, c);
            List<String> notes = dryRun ? null
                    : engine.submit(new PolicyReconfigured(d.name(), loaded.invocation().settings())).notes();
            JsonObject o = new JsonObject();
            o.addProperty("dryRun", dryRun);
            o.addProperty("valid", true);
            loaded.facts().forEach((k, v) -> o.add(k, Json.array(v)));
            if (read == null || loaded.document() == null) {
                if (notes != null) {
                    o.add("notes", Json.array(notes));
                }
                return Answer.ok(o);
            }
            String afterRev = revision(loaded.document());
            o.addProperty(dryRun ? "revision" : "previousRevision", beforeRev);
            o.addProperty(dryRun ? "newRevision" : "revision", afterRev);
            JsonElement from = before == null ? null : Json.read(before.json(), r.document() + " in force");
            o.add("diff", JsonDiff.of(from, Json.read(loaded.document().json(), "request body")));
            if (notes != null) {
                o.add("notes", Json.array(notes));
            }
            return Answer.ok(o).header("ETag", "\"" + (dryRun ? beforeRev : afterRev) + "\"");
        }
    }

    /** The policy's own loader; its refusals as 400s, a query parameter's as invalid-parameter. */
    private static ResourceSpec.Loaded load(ResourceSpec r, Call c) {
        try {
            return r.load(c.bodyText(), "request body", c.query());
        } catch (InvalidRequestException e) {
            List<Problem> ps = e.problems();
            if (!ps.isEmpty() && ps.stream().allMatch(p -> p.subject() != null && p.subject().startsWith("parameter "))) {
                throw new ApiException(400, "invalid-parameter", "A query or path parameter is invalid", e.getMessage(), ps);
            }
            throw ApiException.badRequest("the " + r.document() + " has " + ps.size() + " problem(s); nothing changed", ps);
        }
    }

    private static ResourceSpec readResource(PolicyDeclaration d, String path) {
        return d.resources().stream().filter(x -> x.kind() == ResourceSpec.Kind.READ && x.path().equals(path))
                .findFirst().orElse(null);
    }

    /** A document's revision: a digest of its text and its headers; {@code none} for no document. */
    static String revision(ResourceSpec.Document doc) {
        if (doc == null) {
            return "none";
        }
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(doc.json().getBytes(StandardCharsets.UTF_8));
            for (Map.Entry<String, String> h : doc.headers().entrySet()) {
                d.update((byte) 0);
                d.update((h.getKey() + ": " + h.getValue()).getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(d.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    private static String unquote(String etag) {
        String t = etag.trim();
        if (t.startsWith("W/")) {
            t = t.substring(2);
        }
        return t.length() >= 2 && t.startsWith("\"") && t.endsWith("\"") ? t.substring(1, t.length() - 1) : t;
    }
}
