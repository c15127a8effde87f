package granary.planner.whatif;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import granary.api.spi.ExtensionPoint;
import granary.planner.master.PlannerSettings;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.QuotaTableCodec;
import granary.sim.run.ClassPathPolicies;
import granary.sim.run.PolicySetSpec;
import granary.sim.run.PolicySource;
import granary.sim.run.Progress;
import granary.sim.run.Replay;
import granary.sim.run.ReplayCancelledException;
import granary.sim.run.RunResult;
import granary.sim.run.SimSettings;

/**
 * Runs a what-if with the simulator as a library: the trace is read once, then replayed under two
 * policy sets, {@code draft} and {@code in force}, each the quota policy with its table and the unit
 * order, on fresh engines. The quota policy takes its table from a file, so each table is written to
 * a temporary file that is deleted when the replay ends, however it ends.
 *
 * <p>Everything runs on the calling thread. Interrupting it cancels: the replay stops with
 * {@link ReplayCancelledException} (also when the interrupt comes while the trace is read: the
 * simulator checks it when the replay starts).
 */
public final class WhatIfService {

    /** The labels of the two sides, as the results name them. */
    public static final String DRAFT = "draft";
    public static final String IN_FORCE = "in force";

    /** Reading the trace, before any replay, counts for this part of the progress. */
    private static final double READ_SHARE = 0.05;

    private final PolicySource policies;
    private final Path tempDir;

    /** The policies of the class path, temporary files in the system's temporary folder. */
    public WhatIfService() {
        this(new ClassPathPolicies(), null);
    }

    /**
     * @param tempDir where the tables are written for the replay; null: the system's temporary folder
     */
    public WhatIfService(PolicySource policies, Path tempDir) {
        this.policies = policies;
        this.tempDir = tempDir;
    }

    /** The installed policies that order units, to pair with quota (each made once to find out). */
    public List<String> unitOrders() {
        List<String> out = new ArrayList<>();
        for (String name : policies.names()) {
            PolicySource.Created c = policies.create(name, Map.of());
            try {
                if (ExtensionPoint.of(c.policy()).contains(ExtensionPoint.UNIT_ORDER)) {
                    out.add(name);
                }
            } finally {
                c.release().run();
            }
        }
        return out;
    }

    /**
     * Replays the request's cut of the trace through both tables.
     *
     * @throws ReplayCancelledException if the thread was interrupted
     * @throws IllegalArgumentException for bad input, naming it: the trace file (file:line:column), the
     *         cluster, a policy; {@code granary.sim.trace.TraceException} and
     *         {@code granary.api.model.InvalidRequestException} are such
     * @throws UncheckedIOException if the trace or a temporary file cannot be read or written
     */
    public WhatIfResult run(WhatIfRequest request, WhatIfProgress progress) {
        TableGroups names = TableGroups.of(request.draft(), request.inForce(), request.groups());
        Path draftFile = null;
        Path inForceFile = null;
        Monotone report = new Monotone(progress);
        try {
            draftFile = write(names.forReplay(request.draft()), "draft");
            inForceFile = write(names.forReplay(request.inForce()), "in-force");
            List<PolicySetSpec> sets = List.of(set(DRAFT, draftFile, request.draft(), request.unitOrder()),
                    set(IN_FORCE, inForceFile, request.inForce(), request.unitOrder()));
            Replay.Request replay = new Replay.Request(request.format(), request.trace(), traceOptions(request, names),
                    cluster(request.cluster()), sets, SimSettings.DEFAULTS.withStart(request.startEpochMs()), 1,
                    request.maxJobs() == 0 ? Long.MAX_VALUE : request.maxJobs(),
                    request.untilSeconds() == 0 ? Long.MAX_VALUE : request.untilSeconds() * 1000);
            report.update(0, "reading " + request.trace().getFileName() + " (" + request.format().id() + ")");
            Replay.Report loaded = Replay.load(replay, policies);
            if (Thread.currentThread().isInterrupted()) {
                throw new ReplayCancelledException("what-if cancelled while " + request.trace().getFileName() + " was read");
            }
            long jobs = loaded.workload().jobs().size();
            report.update(READ_SHARE, "replaying " + jobs + " jobs through " + side(DRAFT));
            Replay.Report done = Replay.run(loaded, policies, report.replay());
            report.update(1, "done");
            return result(request, names, jobs, done.runs(), draftFile, inForceFile);
        } catch (RuntimeException e) {
            throw named(e, draftFile, inForceFile);
        } finally {
            delete(draftFile);
            delete(inForceFile);
        }
    }

    private static PolicySetSpec set(String label, Path tableFile, QuotaTable table, String unitOrder) {
        PlannerSettings settings = PlannerSettings.defaults();
        Map<String, String> options = new LinkedHashMap<>();
        options.put(settings.tableOption(), tableFile.toString());
        if (table.workerSpans() != null) {
            options.put(settings.spansOption(), table.workerSpans().toString());
        }
        // built, not parsed: a path may hold ':' or ',' that the set syntax would split on
        return new PolicySetSpec(label, List.of(new PolicySetSpec.Ref(settings.whatIfPolicy(), options),
                new PolicySetSpec.Ref(unitOrder, Map.of())));
    }

    private static Map<String, String> traceOptions(WhatIfRequest r, TableGroups names) {
        Map<String, String> o = new HashMap<>();
        String group = TableGroups.traceOption(r.groups(), names.size());
        if (group != null) {
            o.put("group", group);
        }
        return o;
    }

    private static List<String> cluster(String text) {
        return text.isBlank() ? List.of() : Arrays.stream(text.split(";")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }

    private WhatIfResult result(WhatIfRequest request, TableGroups names, long jobs, List<RunResult> runs, Path draftFile,
                                Path inForceFile) {
        RunSummary draft = Summaries.of(DRAFT, runs.get(0), names, request.draft(), request.startEpochMs());
        RunSummary inForce = Summaries.of(IN_FORCE, runs.get(1), names, request.inForce(), request.startEpochMs());
        List<String> notes = new ArrayList<>();
        if (request.draft().workerForm() != request.inForce().workerForm()) {
            notes.add("the draft counts " + form(request.draft()) + " but the table in force " + form(request.inForce())
                    + ": the per-group amounts of the two are in different units");
        }
        for (RunSummary s : List.of(draft, inForce)) {
            RunResult.Jobs j = s.run().jobs();
            if (j.refused() > 0) {
                notes.add(s.label() + ": " + j.refused() + " of " + s.jobs() + " jobs refused"
                        + (j.refusalExamples().isEmpty() ? "" : ", e.g. " + j.refusalExamples().get(0)));
            }
            if (j.neverStarted() > 0) {
                notes.add(s.label() + ": " + j.neverStarted() + " jobs never started before the replay ended");
            }
            s.run().notes().forEach(n -> notes.add(s.label() + ": " + n));
        }
        return new WhatIfResult(request.trace().getFileName().toString(), jobs, request.draft().workerForm(), draft, inForce,
                notes.stream().map(n -> withoutTempFiles(n, draftFile, inForceFile)).toList());
    }

    private static String side(String label) {
        return DRAFT.equals(label) ? "the draft" : "the table in force";
    }

    private static String form(QuotaTable t) {
        return t.workerForm() ? "workers" : "resources";
    }

    private Path write(QuotaTable table, String side) {
        try {
            Path f = tempDir == null ? Files.createTempFile("granary-whatif-" + side + "-", ".json")
                    : Files.createTempFile(tempDir, "granary-whatif-" + side + "-", ".json");
            Files.writeString(f, QuotaTableCodec.write(table), StandardCharsets.UTF_8);
            return f;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the " + side + " table to a temporary file"
                    + (tempDir == null ? "" : " in " + tempDir) + ": " + e.getMessage(), e);
        }
    }

    private static void delete(Path f) {
        if (f != null) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                // a temporary file left behind does no harm; the replay's outcome matters more
            }
        }
    }

    /** An error naming a temporary table file would mean nothing to the planner's user: name the table. */
    private static RuntimeException named(RuntimeException e, Path draftFile, Path inForceFile) {
        String m = e.getMessage();
        if (m == null || e instanceof ReplayCancelledException) {
            return e;
        }
        String named = withoutTempFiles(m, draftFile, inForceFile);
        if (named.equals(m)) {
            return e;
        }
        return new IllegalArgumentException(named, e);
    }

    private static String withoutTempFiles(String text, Path draftFile, Path inForceFile) {
        String out = text;
        if (draftFile != null) {
            out = out.replace(draftFile.toString(), "the draft table");
        }
        if (inForceFile != null) {
            out = out.replace(inForceFile.toString(), "the table in force");
        }
        return out;
    }

    /**
     * Progress that never goes back, from the simulator's: reading is the first {@link #READ_SHARE},
     * then each set an equal part, within it the larger of the jobs arrived and the simulated time
     * reached of the last arrival's (the drain after the last arrival has no known end, so a set stops
     * short of its end until the next begins).
     */
    private static final class Monotone {
        private final WhatIfProgress out;
        private double last;

        Monotone(WhatIfProgress out) {
            this.out = out;
        }

        void update(double fraction, String message) {
            last = Math.max(last, Math.min(1, fraction));
            out.update(last, message);
        }

        Progress replay() {
            return (label, index, sets, simMs, spanMs, arrived, jobs) -> {
                double within = Math.max(jobs == 0 ? 0 : (double) arrived / jobs, spanMs <= 0 ? 0 : (double) simMs / spanMs);
                double f = READ_SHARE + (1 - READ_SHARE) * (index + Math.min(0.99, within)) / sets;
                update(f, "replaying through " + side(label) + ": " + arrived + " of " + jobs + " jobs arrived, "
                        + String.format(java.util.Locale.ROOT, "%.1f", simMs / 3_600_000.0) + " h of trace time");
            };
        }
    }
}
