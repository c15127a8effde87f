package granary.sim.report;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonObject;

import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.report.Cell;
import granary.api.report.Report;
import granary.api.report.Row;
import granary.api.report.Section;
import granary.sim.metrics.Stats;
import granary.sim.run.Replay;
import granary.sim.run.RunResult;
import granary.sim.workload.ReadReport;

/**
 * {@code results.json}: the trace (and what its reader skipped, defaulted or adjusted), the cluster,
 * the settings, and per policy set everything measured. Wall-clock figures sit apart in each run's
 * {@code performance}; all else is the same for the same inputs. Times are seconds.
 */
public final class ResultsJson {

    private ResultsJson() {
    }

    public static String write(Replay.Report report) {
        return new GsonBuilder().setPrettyPrinting().disableHtmlEscaping().serializeSpecialFloatingPointValues()
                .create().toJson(json(report));
    }

    public static JsonObject json(Replay.Report report) {
        JsonObject o = new JsonObject();
        o.add("trace", trace(report));
        o.add("cluster", cluster(report.nodes()));
        o.add("settings", settings(report.request()));
        JsonArray runs = new JsonArray();
        report.runs().forEach(r -> runs.add(run(r)));
        o.add("runs", runs);
        o.add("comparison", comparison(report.runs()));
        return o;
    }

    private static JsonObject trace(Replay.Report report) {
        Replay.Request r = report.request();
        ReadReport rr = report.workload().report();
        JsonObject t = new JsonObject();
        t.addProperty("format", r.format().id());
        t.addProperty("path", r.tracePath() == null ? null : r.tracePath().toString());
        t.add("options", map(r.traceOptions()));
        t.addProperty("rows", rr.rows());
        t.addProperty("jobs", report.workload().jobs().size());
        t.addProperty("units", report.workload().units());
        t.addProperty("slots", report.workload().slots());
        t.add("skipped", counts(rr, rr.skipped()));
        t.add("defaulted", counts(rr, rr.defaulted()));
        t.add("adjusted", counts(rr, rr.adjusted()));
        t.add("facts", map(rr.facts()));
        return t;
    }

    private static JsonObject counts(ReadReport rr, Map<String, Long> m) {
        JsonObject o = new JsonObject();
        m.forEach((reason, n) -> {
            JsonObject x = new JsonObject();
            x.addProperty("count", n);
            JsonArray ex = new JsonArray();
            rr.examples(reason).forEach(ex::add);
            x.add("examples", ex);
            o.add(reason, x);
        });
        return o;
    }

    private static JsonObject cluster(List<NodeSpec> nodes) {
        JsonObject c = new JsonObject();
        c.addProperty("nodes", nodes.size());
        c.addProperty("rooms", nodes.stream().map(NodeSpec::room).distinct().count());
        Resources cap = Resources.ZERO;
        for (NodeSpec n : nodes) {
            cap = cap.plus(n.capacity());
        }
        c.add("capacity", resources(cap));
        return c;
    }

    private static JsonObject settings(Replay.Request r) {
        JsonObject s = new JsonObject();
        s.addProperty("seed", r.seed());
        s.addProperty("start", Instant.ofEpochMilli(r.settings().startEpochMs()).toString());
        s.addProperty("timeoutSeconds", r.settings().timeoutMs() / 1000.0);
        s.addProperty("tickSeconds", r.settings().tickMs() / 1000.0);
        s.addProperty("idleLimitSeconds", r.settings().idleLimitMs() / 1000.0);
        JsonArray sets = new JsonArray();
        r.sets().forEach(x -> sets.add(x.label()));
        s.add("policySets", sets);
        JsonObject options = new JsonObject();
        r.settings().policyOptions().forEach(o -> options.addProperty(o.policy() + "." + o.option(), o.value()));
        s.add("policyOptions", options);
        return s;
    }

    static JsonObject run(RunResult r) {
        JsonObject o = new JsonObject();
        o.addProperty("policies", r.label());
        JsonArray sel = new JsonArray();
        r.selection().forEach(sel::add);
        o.add("installed", sel);
        o.add("effective", map(r.effective()));
        JsonArray notes = new JsonArray();
        r.notes().forEach(notes::add);
        o.add("notes", notes);
        o.add("jobs", jobs(r.jobs()));
        JsonObject to = new JsonObject();
        to.addProperty("thresholdSeconds", r.timeouts().thresholdMs() / 1000.0);
        to.addProperty("jobs", r.timeouts().jobs());
        to.addProperty("shareOfSubmittedJobs", r.timeouts().share());
        to.addProperty("units", r.timeouts().units());
        o.add("waitForResourceTimeouts", to);
        JsonObject waits = new JsonObject();
        waits.add("jobs", stats(r.waits().jobs()));
        waits.add("units", stats(r.waits().units()));
        waits.add("slots", stats(r.waits().slots()));
        JsonArray bySize = new JsonArray();
        r.waits().jobsBySize().forEach(c -> {
            JsonObject x = stats(c.waits());
            x.addProperty("fromSlots", c.fromSlots());
            if (c.toSlots() > 0) {
                x.addProperty("toSlots", c.toSlots());
            }
            bySize.add(x);
        });
        waits.add("jobsBySize", bySize);
        o.add("waitSeconds", waits);
        o.add("utilisation", doubles(r.utilisation()));
        JsonObject backlog = new JsonObject();
        java.util.Map<String, Double> bu = new java.util.LinkedHashMap<>();
        r.backlog().utilisation().forEach((k, v) -> bu.put(k, v.isNaN() ? 0.0 : v));
        backlog.add("utilisation", doubles(bu));
        backlog.addProperty("seconds", r.backlog().seconds());
        o.add("whileWorkWaits", backlog);
        JsonObject frag = new JsonObject();
        frag.add("strandedShareOfCapacity", doubles(r.strandedShare()));
        frag.addProperty("strandedCpuShareOfFree", r.strandedShareOfFree());
        o.add("fragmentation", frag);
        JsonObject rev = new JsonObject();
        rev.addProperty("slots", r.revocations().slots());
        rev.addProperty("lostSlotSeconds", r.revocations().lostSlotSeconds());
        o.add("revocations", rev);
        o.add("groups", groups(r));
        o.add("reports", reports(r.reports()));
        o.addProperty("simulatedSeconds", r.simulatedMs() / 1000.0);
        o.addProperty("decisions", r.decisions());
        o.addProperty("slotGrants", r.slotGrants());
        o.add("performance", performance(r.performance()));
        return o;
    }

    private static JsonObject jobs(RunResult.Jobs j) {
        JsonObject o = new JsonObject();
        o.addProperty("submitted", j.submitted());
        o.addProperty("refused", j.refused());
        o.addProperty("finished", j.finished());
        o.addProperty("neverStarted", j.neverStarted());
        o.addProperty("unitsRequested", j.unitsRequested());
        o.addProperty("unitsRefused", j.unitsRefused());
        o.addProperty("unitsNotRequested", j.unitsNotRequested());
        JsonObject reasons = new JsonObject();
        j.refusals().forEach(reasons::addProperty);
        o.add("refusalReasons", reasons);
        JsonArray ex = new JsonArray();
        j.refusalExamples().forEach(ex::add);
        o.add("refusalExamples", ex);
        return o;
    }

    private static JsonObject groups(RunResult r) {
        JsonObject o = new JsonObject();
        r.groups().forEach((name, g) -> {
            JsonObject x = new JsonObject();
            x.addProperty("jobs", g.jobs());
            x.addProperty("timeouts", g.timeouts());
            x.addProperty("timeoutShare", g.jobs() == 0 ? 0 : (double) g.timeouts() / g.jobs());
            x.addProperty("slotSeconds", g.slotSeconds());
            x.addProperty("cpuCoreSeconds", g.cpuCoreSeconds());
            x.addProperty("memGibSeconds", g.memGibSeconds());
            x.addProperty("peakSlots", g.peakSlots());
            x.addProperty("revokedSlots", g.revokedSlots());
            x.addProperty("lostSlotSeconds", g.lostSlotSeconds());
            x.addProperty("lostShare", g.lostShare());
            x.addProperty("belowMinWithDemandSeconds", g.belowMinSeconds());
            x.addProperty("longestBelowMinSeconds", g.longestBelowMinSeconds());
            x.addProperty("overMaxSeconds", g.overMaxSeconds());
            x.addProperty("stretchesBelowMinOverBound", g.stretchesOverBound());
            JsonArray longest = new JsonArray();
            g.longestStretches().forEach(st -> {
                JsonObject y = new JsonObject();
                y.addProperty("startSeconds", st.startSeconds());
                y.addProperty("seconds", st.seconds());
                y.addProperty("cause", st.cause());
                y.addProperty("causes", st.causes());
                longest.add(y);
            });
            x.add("longestStretchesBelowMin", longest);
            o.add(name, x);
        });
        return o;
    }

    /**
     * Policy → report → {@code message} (when it has one) and one array of row objects per section:
     * each cell's key with its value (a number, text, true/false, or resources as an object).
     */
    private static JsonObject reports(Map<String, Map<String, Report>> reports) {
        JsonObject o = new JsonObject();
        reports.forEach((policy, byName) -> {
            JsonObject p = new JsonObject();
            byName.forEach((name, report) -> p.add(name, report(report)));
            o.add(policy, p);
        });
        return o;
    }

    private static JsonObject report(Report report) {
        JsonObject o = new JsonObject();
        if (report.message() != null) {
            o.addProperty("message", report.message());
        }
        for (Section s : report.sections()) {
            JsonArray rows = new JsonArray();
            for (Row row : s.rows()) {
                JsonObject x = new JsonObject();
                if (row.depth() > 0) {
                    x.addProperty("depth", row.depth());
                }
                for (Cell c : row.cells()) {
                    value(x, c.key(), c.value());
                }
                rows.add(x);
            }
            o.add(s.name(), rows);
        }
        return o;
    }

    private static void value(JsonObject into, String key, Object v) {
        if (v instanceof Resources r) {
            into.add(key, resources(r));
        } else if (v instanceof Number n) {
            into.addProperty(key, n);
        } else if (v instanceof Boolean b) {
            into.addProperty(key, b);
        } else {
            into.addProperty(key, v == null ? null : v.toString());
        }
    }

    private static JsonObject performance(RunResult.Performance p) {
        JsonObject o = new JsonObject();
        o.addProperty("wallSeconds", p.wallSeconds());
        o.addProperty("decisionsPerWallSecond", p.decisionsPerSecond());
        o.addProperty("slotGrantsPerWallSecond", p.slotGrantsPerSecond());
        o.addProperty("speedUp", p.speedUp());
        return o;
    }

    private static JsonObject comparison(List<RunResult> runs) {
        JsonObject o = new JsonObject();
        RunResult best = SummaryText.fewestTimeouts(runs);
        o.addProperty("fewestWaitForResourceTimeouts", best == null ? null : best.label());
        JsonObject by = new JsonObject();
        runs.forEach(r -> by.addProperty(r.label(), r.timeouts().jobs()));
        o.add("timeoutsByPolicySet", by);
        return o;
    }

    private static JsonObject stats(Stats s) {
        JsonObject o = new JsonObject();
        o.addProperty("count", s.count());
        o.addProperty("mean", s.mean() / 1000.0);
        o.addProperty("p50", s.p50() / 1000.0);
        o.addProperty("p90", s.p90() / 1000.0);
        o.addProperty("p99", s.p99() / 1000.0);
        o.addProperty("max", s.max() / 1000.0);
        return o;
    }

    static JsonObject resources(Resources r) {
        JsonObject o = new JsonObject();
        o.addProperty("cpu", r.cpu());
        o.addProperty("mem", r.memMb());
        r.extended().forEach(o::addProperty);
        return o;
    }

    private static JsonObject map(Map<String, String> m) {
        JsonObject o = new JsonObject();
        new java.util.TreeMap<>(m).forEach(o::addProperty);
        return o;
    }

    private static JsonObject doubles(Map<String, Double> m) {
        JsonObject o = new JsonObject();
        m.forEach(o::addProperty);
        return o;
    }
}
