package granary.http;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import granary.api.report.Report;
import granary.api.spi.CommandSpec;
import granary.api.spi.Invocation;
import granary.api.spi.Policy;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;
import granary.api.spi.ReasonCode;
import granary.api.spi.ReportSpec;
import granary.api.spi.ResourceSpec;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.function.Supplier;

/**
 * The reports policies declare, served as JSON without naming a policy (docs/architecture.md,
 * "Reports and commands"): a report's parameters are query parameters of the same names.
 */
final class PolicyReports {

    private final Supplier<Collection<PolicyProvider>> providers;

    PolicyReports(Supplier<Collection<PolicyProvider>> providers) {
        this.providers = providers;
    }

    PolicyDeclaration declaration(String policy) {
        for (PolicyProvider p : providers.get()) {
            if (p.declaration().name().equals(policy)) {
                return p.declaration();
            }
        }
        return null;
    }

    /** What a policy declares: its description, reports and commands with their parameters, resources, metrics and reason codes. */
    JsonObject describe(String policy) {
        PolicyDeclaration d = declaration(policy);
        JsonObject o = new JsonObject();
        if (d == null) {
            return o;
        }
        o.addProperty("description", d.description());
        JsonArray reports = new JsonArray();
        for (ReportSpec r : d.reports()) {
            JsonObject ro = new JsonObject();
            ro.addProperty("name", r.name());
            ro.addProperty("description", r.description());
            ro.addProperty("sampled", r.sampled());
            ro.add("parameters", parameters(r.parameters()));
            ro.addProperty("href", "/api/v1/policies/" + policy + "/reports/" + r.name());
            reports.add(ro);
        }
        o.add("reports", reports);
        JsonArray commands = new JsonArray();
        for (CommandSpec c : d.commands()) {
            JsonObject co = new JsonObject();
            co.addProperty("name", c.name());
            co.addProperty("description", c.description());
            co.add("parameters", parameters(c.parameters()));
            commands.add(co);
        }
        o.add("consoleCommands", commands);
        JsonArray resources = new JsonArray();
        for (ResourceSpec r : d.resources()) {
            JsonObject ro = new JsonObject();
            ro.addProperty("method", r.method());
            ro.addProperty("href", Api.BASE + r.path());
            ro.addProperty("kind", r.kind().name().toLowerCase(java.util.Locale.ROOT));
            ro.addProperty("document", r.document());
            ro.addProperty("summary", r.summary());
            if (r.kind() == ResourceSpec.Kind.REPORTS) {
                JsonArray names = new JsonArray();
                r.reports().forEach(names::add);
                ro.add("reports", names);
            }
            if (r.revisionOf() != null) {
                ro.addProperty("revisionOf", Api.BASE + r.revisionOf());
            }
            resources.add(ro);
        }
        o.add("resources", resources);
        JsonArray metrics = new JsonArray();
        d.metrics().forEach(m -> metrics.add(m.name()));
        o.add("metrics", metrics);
        JsonArray reasons = new JsonArray();
        for (ReasonCode c : d.reasons()) {
            JsonObject co = new JsonObject();
            co.addProperty("code", c.name());
            co.addProperty("meaning", c.meaning());
            if (c.hintText() != null) {
                co.addProperty("hint", c.hintText());
            }
            reasons.add(co);
        }
        o.add("reasonCodes", reasons);
        return o;
    }

    private static JsonArray parameters(List<CommandSpec.Parameter> ps) {
        JsonArray a = new JsonArray();
        for (CommandSpec.Parameter p : ps) {
            JsonObject po = new JsonObject();
            po.addProperty("name", p.name());
            po.addProperty("description", p.description());
            po.addProperty("optional", p.optional());
            a.add(po);
        }
        return a;
    }

    /** Reads report {@code name} of {@code policy}, its parameters taken from the query. */
    JsonObject read(Engine engine, String policy, String name, Call call) {
        PolicyDeclaration d = declaration(policy);
        if (d == null) {
            throw ApiException.notFound("policy " + policy, "no policy named '" + policy + "' is installed (GET /api/v1/policies lists them)");
        }
        ReportSpec spec = d.reports().stream().filter(r -> r.name().equals(name)).findFirst().orElseThrow(() ->
                ApiException.notFound("report " + name, "policy " + policy + " declares no report '" + name + "'; it declares "
                        + d.reports().stream().map(ReportSpec::name).toList()));
        List<String> args = new ArrayList<>();
        for (CommandSpec.Parameter p : spec.parameters()) {
            String v = call.query().get(p.name());
            if (v == null) {
                if (!p.optional()) {
                    throw ApiException.badParameter(p.name(), "report " + name + " needs '" + p.name() + "': " + p.description());
                }
                break; // optional parameters are trailing: the first absent one ends the list
            }
            args.add(v);
        }
        Invocation inv;
        try {
            inv = spec.prepare(args);
        } catch (IllegalArgumentException e) {
            String at = args.isEmpty() ? name : spec.parameters().get(args.size() - 1).name();
            throw ApiException.badParameter(at, e.getMessage());
        }
        Report r = engine.query(v -> {
            Policy installed = v.policy(policy);
            if (installed == null) {
                throw ApiException.notFound("policy " + policy, "policy " + policy + " is declared but has no instance installed");
            }
            return inv.run(installed, v);
        });
        return Views.report(r);
    }
}
