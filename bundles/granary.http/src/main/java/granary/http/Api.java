package granary.http;

import static granary.http.ApiRole.ADMIN;
import static granary.http.ApiRole.OPERATOR;
import static granary.http.ApiRole.READER;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import granary.api.event.JobCancelled;
import granary.api.event.JobMoved;
import granary.api.event.JobsSubmitted;
import granary.api.event.NodeBlacklisted;
import granary.api.event.OutputEvent;
import granary.api.event.PolicyActivated;
import granary.api.event.PolicyDeactivated;
import granary.api.event.Granted;
import granary.api.event.Receipt;
import granary.api.event.Revoked;
import granary.api.model.JobSpec;
import granary.api.spi.GroupView;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.PolicyInfo;
import granary.api.spi.PolicyProvider;
import granary.codec.CodecException;
import granary.codec.JobCodec;
import java.io.StringReader;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The REST API's route table (docs/api.md): every operation declared once, with the role it needs
 * and what OpenAPI says of it. Plain Java over the {@link granary.api.event.Scheduler}; the servlet
 * and the OSGi component are its edges.
 */
public final class Api {

    /** The API's base path. */
    public static final String BASE = "/api/v1";

    private final Engine engine;
    private final PolicyReports reports;
    private final AuditLog audit;
    private final Supplier<PeerSource> peers;
    private final List<Route> routes = new ArrayList<>();
    private final PolicyResources resources;
    /** Writes that read the state in force, check it and change it are serialised, so a revision check holds until the change. */
    private final Object writes = new Object();

    /**
     * @param scheduler the live scheduler
     * @param providers the installed policies' declarations (for their reports and resources)
     * @param audit     where writes are recorded
     * @param peers     the master's peers, or a supplier of null where this runtime has no master side
     * @param timeout   the longest wait for the engine before a 503
     */
    public Api(granary.api.event.Scheduler scheduler, Supplier<Collection<PolicyProvider>> providers, AuditLog audit,
               Supplier<PeerSource> peers, Duration timeout) {
        this.engine = new Engine(scheduler, timeout);
        this.reports = new PolicyReports(providers);
        this.audit = audit;
        this.peers = peers;
        this.resources = new PolicyResources(providers, engine, reports, writes);
        declare();
    }

    /** The API's own routes, then those of the resources the installed policies declare now. */
    public List<Route> routes() {
        List<Route> all = new ArrayList<>(routes);
        all.addAll(resources.routes(routes));
        return all;
    }

    public AuditLog audit() {
        return audit;
    }

    Engine engine() {
        return engine;
    }

    private void add(Route r) {
        routes.add(r);
    }

    private void declare() {
        add(Route.get("/status", READER).id("getStatus")
                .summary("The scheduler's status: the keys of granary:status (nodes, capacity, free, jobs, waiting, policies, health)")
                .handle(c -> Answer.ok(engine.query(v -> Views.status(v.status())))));

        // ---- nodes ----
        add(Route.get("/nodes", READER).id("listNodes").summary("Nodes by name, filtered; one page")
                .param("room", "string", "only nodes of this room")
                .param("label", "string", "only nodes with this label: key=value, or key for any value")
                .param("state", "string", "idle, busy, full or blacklisted")
                .param("offset", "integer", "first item of the page (default 0)")
                .param("limit", "integer", "items per page, 1-1000 (default 100)")
                .answers(200, 400).handle(this::nodes));
        add(Route.get("/nodes/{name}", READER).id("getNode").summary("One node with the slots of every unit on it")
                .answers(200, 404).handle(c -> Answer.ok(engine.query(v -> {
                    NodeView n = v.cluster().node(c.path("name"));
                    if (n == null) {
                        throw ApiException.notFound("node " + c.path("name"), "no node named '" + c.path("name") + "'");
                    }
                    return Views.node(n, true);
                }))));
        add(Route.put("/nodes/{name}/blacklist", OPERATOR).id("blacklistNode")
                .summary("Put a node on the global blacklist: it takes no new work; running work stays")
                .answers(200, 404).handle(c -> blacklist(c, true)));
        add(Route.delete("/nodes/{name}/blacklist", OPERATOR).id("unblacklistNode")
                .summary("Take a node off the global blacklist").answers(200, 404).handle(c -> blacklist(c, false)));

        // ---- jobs ----
        add(Route.get("/jobs", READER).id("listJobs").summary("Jobs and their units by id, filtered; one page")
                .param("queue", "string", "only jobs of this queue or below it (full path, e.g. root.a)")
                .param("state", "string", "waiting, running or idle")
                .param("user", "string", "only jobs of this user")
                .param("offset", "integer", "first item of the page (default 0)")
                .param("limit", "integer", "items per page, 1-1000 (default 100)")
                .answers(200, 400).handle(this::jobs));
        add(Route.post("/jobs", OPERATOR).id("submitJobs")
                .summary("Submit one job or an array of jobs (the job file format), all or nothing")
                .body("a job object or an array of them (docs/formats.md, job files)")
                .answers(201, 400, 409, 413, 415).handle(this::submit));
        add(Route.get("/jobs/{id}", READER).id("getJob").summary("One job with its units and their grants")
                .answers(200, 404).handle(c -> Answer.ok(engine.query(v -> Views.job(job(v, c.path("id")), true)))));
        add(Route.delete("/jobs/{id}", OPERATOR).id("cancelJob")
                .summary("Cancel a job: its waiting desire is dropped and its slots are released").answers(200, 404)
                .handle(this::cancel));
        add(Route.put("/jobs/{id}/queue", OPERATOR).id("moveJob")
                .summary("Move a job to another queue; its grants stay, its usage and waiting units move")
                .body("{\"queue\": \"root.a.p0\"}").answers(200, 400, 404, 415).handle(this::move));
        add(Route.get("/jobs/{id}/why", READER).id("whyJob")
                .summary("Why the job's units wait: the reasons counted per unit, with the numbers, and in sentences")
                .answers(200, 404).handle(c -> Answer.ok(engine.query(v -> Why.of(job(v, c.path("id")), v.now())))));

        // ---- queues, policies (a policy's own resources: PolicyResources) ----
        add(Route.get("/queues", READER).id("listQueues")
                .summary("Every queue (group) by full path: usage, waiting work, jobs; and the fields the installed policies add")
                .handle(c -> Answer.ok(queues())));
        add(Route.get("/policies", READER).id("listPolicies")
                .summary("Installed policies: their extension points, origin, whether selected and active, their reports")
                .handle(c -> Answer.ok(policies())));
        add(Route.put("/policies/{name}/active", ADMIN).id("activatePolicy")
                .summary("Activate (true) or deselect (false) a policy; the swap happens between two decisions")
                .body("{\"active\": true}").answers(200, 400, 404, 415).handle(this::activate));
        add(Route.get("/policies/{name}/reports/{report}", READER).id("readPolicyReport")
                .summary("A report a policy declares, as data; its parameters are query parameters of the same names")
                .answers(200, 400, 404)
                .handle(c -> Answer.ok(reports.read(engine, c.path("name"), c.path("report"), c))));

        // ---- peers, audit ----
        add(Route.get("/agents", READER).id("listAgents").summary("Node agents known to the master: state, incarnation, last seen, caps")
                .param("offset", "integer", "first item of the page (default 0)")
                .param("limit", "integer", "items per page, 1-1000 (default 100)")
                .answers(200, 404).handle(c -> Answer.ok(Page.of(peerSource().agents(), c, PeerSource::json))));
        add(Route.get("/jobmasters", READER).id("listJobMasters").summary("Job masters known to the master: state, jobs, slots")
                .param("offset", "integer", "first item of the page (default 0)")
                .param("limit", "integer", "items per page, 1-1000 (default 100)")
                .answers(200, 404).handle(c -> Answer.ok(Page.of(peerSource().jobMasters(), c, PeerSource::json))));
        add(Route.get("/audit", ADMIN).id("readAudit").summary("The latest writes: who, what, when, result")
                .param("limit", "integer", "how many, 1-1000 (default 100)")
                .answers(200, 400).handle(c -> Answer.ok(AuditLog.json(audit.latest(c.number("limit", 100, 1, 1000))))));
    }

    // ---- handlers ----

    private Answer nodes(Call c) {
        String room = c.query("room", null);
        String label = c.query("label", null);
        String state = c.query("state", null);
        if (state != null && !List.of("idle", "busy", "full", "blacklisted").contains(state)) {
            throw ApiException.badParameter("state", "'state' is idle, busy, full or blacklisted, got '" + state + "'");
        }
        String key = label == null ? null : label.contains("=") ? label.substring(0, label.indexOf('=')) : label;
        String value = label == null || !label.contains("=") ? null : label.substring(label.indexOf('=') + 1);
        return Answer.ok(engine.query(v -> {
            List<NodeView> out = new ArrayList<>();
            for (NodeView n : v.cluster().nodes()) {
                if ((room == null || room.equals(n.room()))
                        && (key == null || (n.labels().containsKey(key) && (value == null || value.equals(n.labels().get(key)))))
                        && (state == null || state.equals(Views.state(n)))) {
                    out.add(n);
                }
            }
            out.sort(Comparator.comparing(NodeView::name));
            return Page.of(out, c, n -> Views.node(n, false));
        }));
    }

    private Answer blacklist(Call c, boolean on) {
        String name = c.path("name");
        engine.query(v -> {
            if (v.cluster().node(name) == null) {
                throw ApiException.notFound("node " + name, "no node named '" + name + "'");
            }
            return null;
        });
        Receipt r = engine.submit(new NodeBlacklisted(name, on));
        JsonObject o = new JsonObject();
        o.addProperty("node", name);
        o.addProperty("blacklisted", on);
        o.addProperty("granted", granted(r.outputs(), null));
        return Answer.ok(o);
    }

    private Answer jobs(Call c) {
        String queue = c.query("queue", null);
        String state = c.query("state", null);
        String user = c.query("user", null);
        if (state != null && !List.of("waiting", "running", "idle").contains(state)) {
            throw ApiException.badParameter("state", "'state' is waiting, running or idle, got '" + state + "'");
        }
        return Answer.ok(engine.query(v -> {
            List<JobView> out = new ArrayList<>();
            for (JobView j : v.jobs()) {
                if ((queue == null || j.group().equals(queue) || j.group().startsWith(queue + "."))
                        && (user == null || user.equals(j.user()))
                        && (state == null || state.equals(Views.state(j)))) {
                    out.add(j);
                }
            }
            out.sort(Comparator.comparing(JobView::id));
            return Page.of(out, c, j -> Views.job(j, false));
        }));
    }

    static JobView job(granary.api.spi.EngineView v, String id) {
        JobView j = v.job(id);
        if (j == null) {
            throw ApiException.notFound("job " + id, "no job '" + id + "' (finished and cancelled jobs are forgotten)");
        }
        return j;
    }

    private Answer submit(Call c) {
        List<JobSpec> jobs;
        try {
            jobs = JobCodec.read(new StringReader(c.bodyText()), "request body");
        } catch (CodecException e) {
            throw ApiException.badRequest("the job document has " + e.problems().size() + " problem(s); nothing was submitted",
                    e.problems());
        }
        if (jobs.isEmpty()) {
            throw ApiException.badRequest("the request body holds no job: send a job object or a non-empty array of them",
                    List.of(granary.api.model.Problem.of("request body", "$", "no job")));
        }
        List<String> ids = jobs.stream().map(JobSpec::id).toList();
        Receipt r;
        synchronized (writes) {
            List<String> known = engine.query(v -> ids.stream().filter(id -> v.job(id) != null).toList());
            if (!known.isEmpty()) {
                throw ApiException.conflict("exists", "job(s) " + known + " exist already; nothing was submitted");
            }
            r = engine.submit(new JobsSubmitted(jobs));
        }
        JsonArray submitted = engine.query(v -> {
            JsonArray a = new JsonArray();
            for (JobSpec j : jobs) {
                JobView view = v.job(j.id());
                JsonObject o = new JsonObject();
                o.addProperty("id", j.id());
                o.addProperty("queue", view == null ? j.group() : view.group());
                o.addProperty("desired", j.units().stream().mapToLong(u -> u.desired()).sum());
                o.addProperty("granted", granted(r.outputs(), j.id()));
                o.addProperty("href", BASE + "/jobs/" + URLEncoder.encode(j.id(), StandardCharsets.UTF_8));
                a.add(o);
            }
            return a;
        });
        JsonObject o = new JsonObject();
        o.add("submitted", submitted);
        return Answer.created(o, submitted.get(0).getAsJsonObject().get("href").getAsString());
    }

    private static long granted(List<OutputEvent> outputs, String job) {
        return outputs.stream().filter(e -> e instanceof Granted g && (job == null || g.unit().job().equals(job)))
                .mapToLong(e -> ((Granted) e).slots()).sum();
    }

    private Answer cancel(Call c) {
        String id = c.path("id");
        Receipt r;
        synchronized (writes) {
            engine.query(v -> job(v, id));
            r = engine.submit(new JobCancelled(id));
        }
        long released = r.outputs().stream().filter(e -> e instanceof Revoked rv && rv.unit().job().equals(id))
                .mapToLong(e -> ((Revoked) e).slots()).sum();
        JsonObject o = new JsonObject();
        o.addProperty("cancelled", id);
        o.addProperty("released", released);
        return Answer.ok(o);
    }

    private Answer move(Call c) {
        String id = c.path("id");
        JsonObject body = Json.object(c.bodyText(), "request body");
        Json.only(body, "request body", "queue");
        String queue = Json.string(body, "queue", "request body");
        synchronized (writes) {
            engine.query(v -> job(v, id));
            engine.submit(new JobMoved(id, queue));
        }
        JsonObject o = new JsonObject();
        o.addProperty("moved", id);
        String now = engine.query(v -> v.job(id) == null ? queue : v.job(id).group());
        o.addProperty("queue", now);
        return Answer.ok(o);
    }

    private JsonObject queues() {
        return engine.query(v -> {
            JsonObject o = new JsonObject();
            JsonArray groups = new JsonArray();
            List<GroupView> all = new ArrayList<>(v.groups());
            all.sort(Comparator.comparing(GroupView::name));
            all.forEach(g -> groups.add(Views.group(g)));
            o.add("queues", groups);
            resources.addFields("/queues", v, o);
            return o;
        });
    }

    private JsonObject policies() {
        List<PolicyInfo> infos = engine.query(v -> v.policies());
        JsonArray a = new JsonArray();
        for (PolicyInfo p : infos) {
            JsonObject o = Views.policy(p);
            JsonObject declared = reports.describe(p.name());
            declared.entrySet().forEach(e -> o.add(e.getKey(), e.getValue()));
            a.add(o);
        }
        JsonObject o = new JsonObject();
        o.add("policies", a);
        o.add("inEffect", engine.query(v -> Json.strings(v.status().policies())));
        return o;
    }

    private Answer activate(Call c) {
        String name = c.path("name");
        JsonObject body = Json.object(c.bodyText(), "request body");
        Json.only(body, "request body", "active");
        boolean active = Json.bool(body, "active", "request body");
        Receipt r;
        synchronized (writes) {
            boolean known = engine.query(v -> v.policies().stream().anyMatch(p -> p.name().equals(name)));
            if (!known) {
                throw ApiException.notFound("policy " + name, "no policy named '" + name + "' is installed (GET /api/v1/policies lists them)");
            }
            r = engine.submit(active ? new PolicyActivated(name) : new PolicyDeactivated(name));
        }
        JsonObject o = new JsonObject();
        o.addProperty("policy", name);
        o.addProperty("active", active);
        o.add("notes", Json.array(r.notes()));
        o.add("inEffect", engine.query(v -> Json.strings(v.status().policies())));
        return Answer.ok(o);
    }

    private PeerSource peerSource() {
        PeerSource p = peers.get();
        if (p == null) {
            throw ApiException.notFound("peers", "this runtime serves no master side (started with --listen=off, or a standby): no agents or job masters");
        }
        return p;
    }

    /** The path of a route with its named segments filled, for links. */
    static String href(String template, Map<String, String> values) {
        String out = template;
        for (Map.Entry<String, String> e : values.entrySet()) {
            out = out.replace("{" + e.getKey() + "}", URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8));
        }
        return BASE + out;
    }
}
