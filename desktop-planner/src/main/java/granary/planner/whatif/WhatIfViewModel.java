package granary.planner.whatif;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Executor;

import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

import granary.policy.quota.api.QuotaTable;
import granary.sim.run.ReplayCancelledException;
import granary.sim.trace.TraceFormat;

/**
 * The what-if's state and commands (docs/planner.md): the form (trace, format, cluster, cut, group
 * assignment, unit order), the two tables the shell sets, and a run in the background with its
 * progress, status line and result. Meant to be used from the UI thread; the worker's news reaches
 * the properties only through {@code ui} ({@code Platform::runLater} in the application), so the
 * properties change on the UI thread only.
 *
 * <p>A run clears the result first and sets it only when both replays are done: a cancelled or failed
 * run leaves no result, never half of one.
 */
public final class WhatIfViewModel {

    private final Executor ui;
    private final WhatIfService service;

    private final ObjectProperty<QuotaTable> draft = new SimpleObjectProperty<>(this, "draft");
    private final ObjectProperty<QuotaTable> inForce = new SimpleObjectProperty<>(this, "inForce");
    private final ObjectProperty<Path> trace = new SimpleObjectProperty<>(this, "trace");
    private final ObjectProperty<TraceFormat> format = new SimpleObjectProperty<>(this, "format", TraceFormat.ALIBABA_2017);
    private final ObservableList<TraceFormat> formats = FXCollections.unmodifiableObservableList(FXCollections.observableArrayList(
            Arrays.stream(TraceFormat.values()).filter(TraceFormat::needsPath).toList()));
    private final StringProperty cluster = new SimpleStringProperty(this, "cluster", "");
    private final LongProperty maxJobs = new SimpleLongProperty(this, "maxJobs", 0);
    private final LongProperty untilSeconds = new SimpleLongProperty(this, "untilSeconds", 0);
    private final ObjectProperty<GroupAssignment> groups = new SimpleObjectProperty<>(this, "groups",
            GroupAssignment.hashIntoTableGroups());
    private final ObservableList<GroupAssignment> groupChoices = FXCollections.unmodifiableObservableList(
            FXCollections.observableArrayList(GroupAssignment.hashIntoTableGroups(), GroupAssignment.asInTrace()));
    private final StringProperty unitOrder = new SimpleStringProperty(this, "unitOrder", WhatIfRequest.DEFAULT_UNIT_ORDER);
    private final ObjectProperty<java.time.LocalDate> startDate = new SimpleObjectProperty<>(this, "startDate",
            java.time.Instant.ofEpochMilli(WhatIfRequest.DEFAULT_START).atZone(java.time.ZoneOffset.UTC).toLocalDate());
    private final javafx.beans.property.IntegerProperty startHour = new javafx.beans.property.SimpleIntegerProperty(this, "startHour", 0);
    private final ReadOnlyObjectWrapper<Verdict> verdict = new ReadOnlyObjectWrapper<>(this, "verdict");
    private final StringProperty inForceRevision = new SimpleStringProperty(this, "inForceRevision");
    private final ReadOnlyStringWrapper baseline = new ReadOnlyStringWrapper(this, "baseline", "no table in force yet");
    /** The revision the shown result compared with. */
    private String resultRevision;
    private final ObservableList<String> unitOrders;

    private final ReadOnlyDoubleWrapper progress = new ReadOnlyDoubleWrapper(this, "progress", 0);
    private final ReadOnlyStringWrapper status = new ReadOnlyStringWrapper(this, "status",
            "choose a trace file, then run: the draft and the table in force are replayed side by side");
    private final ReadOnlyBooleanWrapper running = new ReadOnlyBooleanWrapper(this, "running", false);
    private final ReadOnlyObjectWrapper<WhatIfResult> result = new ReadOnlyObjectWrapper<>(this, "result");

    /** Which run the UI shows: news of an older one is dropped. Read and written on the UI thread. */
    private long generation;
    private Thread worker;
    private boolean cancelled;

    /**
     * @param ui runs what changes the properties on the UI thread: {@code Platform::runLater}, or
     *           {@code Runnable::run} where the caller is the only thread that looks (tests)
     */
    public WhatIfViewModel(Executor ui, WhatIfService service) {
        this.ui = ui;
        this.service = service;
        this.unitOrders = FXCollections.unmodifiableObservableList(FXCollections.observableArrayList(service.unitOrders()));
        inForce.addListener((o, a, b) -> updateBaseline());
        inForceRevision.addListener((o, a, b) -> updateBaseline());
        trace.addListener((o, before, path) -> {
            TraceFormat guess = guessFormat(path, format.get());
            if (guess != null) {
                format.set(guess);
            }
        });
    }

    // ---- the tables (set by the shell) ----

    /** The editor's valid draft; null while there is none. */
    public ObjectProperty<QuotaTable> draftProperty() {
        return draft;
    }

    /** The table imported from a master; null until one is. */
    public ObjectProperty<QuotaTable> inForceProperty() {
        return inForce;
    }

    /** The revision of the table in force ({@link #inForceProperty}), as the master named it; null if unknown. */
    public StringProperty inForceRevisionProperty() {
        return inForceRevision;
    }

    /**
     * What the what-if compares with, in words: the revision in force, and whether the shown result
     * compared with an older one ({@code ... the table in force is now rev-b: run again}).
     */
    public ReadOnlyStringProperty baselineProperty() {
        return baseline.getReadOnlyProperty();
    }

    private void updateBaseline() {
        String now = inForceRevision.get();
        if (inForce.get() == null) {
            baseline.set("no table in force to compare with: connect to a master");
        } else if (result.get() != null && !java.util.Objects.equals(resultRevision, now)) {
            baseline.set("out of date: this result compared with revision " + rev(resultRevision)
                    + ", but the table in force is now revision " + rev(now) + ": run again");
        } else {
            baseline.set("compares the draft with the table in force, revision " + rev(now));
        }
    }

    private static String rev(String r) {
        return r == null ? "(unknown)" : r.length() > 12 ? r.substring(0, 12) : r;
    }

    // ---- the form ----

    /** The trace file; setting it picks the format its name tells, if it tells one. */
    public ObjectProperty<Path> traceProperty() {
        return trace;
    }

    public ObjectProperty<TraceFormat> formatProperty() {
        return format;
    }

    /** The formats a trace file can be in. */
    public ObservableList<TraceFormat> formats() {
        return formats;
    }

    /** The simulator's cluster text, e.g. {@code nodes=100,cpu=6400,mem=262144}; blank: the trace's own. */
    public StringProperty clusterProperty() {
        return cluster;
    }

    /** Replay only the first jobs by arrival; 0: all. */
    public LongProperty maxJobsProperty() {
        return maxJobs;
    }

    /** Replay only jobs arriving until then, seconds of trace time; 0: all. */
    public LongProperty untilSecondsProperty() {
        return untilSeconds;
    }

    /** How jobs land in the tables' groups. */
    public ObjectProperty<GroupAssignment> groupsProperty() {
        return groups;
    }

    /** The usual choices; {@link GroupAssignment#rule} gives any other. */
    public ObservableList<GroupAssignment> groupChoices() {
        return groupChoices;
    }

    /** The unit-order policy paired with quota. */
    public StringProperty unitOrderProperty() {
        return unitOrder;
    }

    /** The date (UTC) the replay starts on: trace time 0 is replayed at {@link #startHourProperty} of it. */
    public ObjectProperty<java.time.LocalDate> startDateProperty() {
        return startDate;
    }

    /** The hour of the day (UTC, 0-23) the replay starts at. */
    public javafx.beans.property.IntegerProperty startHourProperty() {
        return startHour;
    }

    /** When trace time 0 is replayed, as epoch milliseconds (UTC). */
    public long startEpochMs() {
        java.time.LocalDate d = startDate.get() == null ? java.time.LocalDate.of(2024, 1, 1) : startDate.get();
        return d.atTime(Math.floorMod(startHour.get(), 24), 0).toInstant(java.time.ZoneOffset.UTC).toEpochMilli();
    }

    /** Which table did better, measure by measure; null while there is no result. */
    public ReadOnlyObjectProperty<Verdict> verdictProperty() {
        return verdict.getReadOnlyProperty();
    }

    /** The installed unit-order policies. */
    public ObservableList<String> unitOrders() {
        return unitOrders;
    }

    // ---- the run ----

    /** 0..1 while running; 1 after a run that finished. */
    public ReadOnlyDoubleProperty progressProperty() {
        return progress.getReadOnlyProperty();
    }

    /** One line: what is being done, or what went wrong and where. */
    public ReadOnlyStringProperty statusProperty() {
        return status.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty runningProperty() {
        return running.getReadOnlyProperty();
    }

    /** Both sides of the last run that finished; null before, while running, and after a cancel or error. */
    public ReadOnlyObjectProperty<WhatIfResult> resultProperty() {
        return result.getReadOnlyProperty();
    }

    /**
     * Starts a what-if on a background thread, unless one runs or something is missing (the status
     * says what).
     */
    public void run() {
        if (running.get()) {
            return;
        }
        String missing = missing();
        if (missing != null) {
            status.set("cannot run: " + missing);
            return;
        }
        WhatIfRequest request = new WhatIfRequest(trace.get(), format.get(), cluster.get(), maxJobs.get(), untilSeconds.get(),
                groups.get(), unitOrder.get(), draft.get(), inForce.get(), startEpochMs());
        long id = ++generation;
        String revision = inForceRevision.get();
        cancelled = false;
        result.set(null);
        verdict.set(null);
        progress.set(0);
        running.set(true);
        status.set("starting: " + request.trace().getFileName());
        Thread t = new Thread(() -> work(id, request, revision), "granary-whatif-" + id);
        t.setDaemon(true);   // a replay in progress must not keep the planner from closing
        worker = t;
        t.start();
    }

    /** Stops the run in progress; its status becomes "cancelled" when it has stopped. */
    public void cancel() {
        if (running.get() && worker != null) {
            cancelled = true;
            status.set("cancelling…");
            worker.interrupt();
        }
    }

    private String missing() {
        if (draft.get() == null) {
            return "no draft table: draw a valid table in the editor";
        }
        if (inForce.get() == null) {
            return "no table in force: import one from a master";
        }
        Path p = trace.get();
        if (p == null) {
            return "no trace file: choose one (e.g. the Alibaba 2017 batch_task.csv.gz)";
        }
        if (!Files.exists(p)) {
            return "trace file " + p.toAbsolutePath() + " does not exist";
        }
        if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
            return "trace file " + p.toAbsolutePath() + " is not a readable file";
        }
        if (format.get() == null) {
            return "no trace format: choose the format of " + p.getFileName();
        }
        if (startHour.get() < 0 || startHour.get() > 23) {
            return "the start hour must be 0 to 23 (UTC), not " + startHour.get();
        }
        if (maxJobs.get() < 0 || untilSeconds.get() < 0) {
            return "the job limit and until must not be negative (0: no limit)";
        }
        return null;
    }

    private void work(long id, WhatIfRequest request, String revision) {
        long start = System.nanoTime();
        try {
            WhatIfResult r = service.run(request, (fraction, message) -> publish(id, () -> {
                progress.set(fraction);
                status.set(message);
            }));
            double seconds = (System.nanoTime() - start) / 1e9;
            publish(id, () -> {
                if (cancelled) {
                    // the interrupt came after the last replay's end: the user asked for nothing
                    finish("cancelled");
                    return;
                }
                verdict.set(Verdict.of(r));
                resultRevision = revision;
                result.set(r);
                updateBaseline();
                progress.set(1);
                finish(String.format(Locale.ROOT, "done in %.1f s: %d jobs of %s replayed through the draft and the table "
                        + "in force", seconds, r.jobs(), r.trace()) + (r.notes().isEmpty() ? "" : " (" + r.notes().size()
                        + " notes)"));
            });
        } catch (ReplayCancelledException e) {
            publish(id, () -> finish("cancelled"));
        } catch (OutOfMemoryError e) {
            publish(id, () -> finish("error: out of memory replaying " + request.trace().getFileName()
                    + ": replay fewer jobs (job limit) or on a smaller cluster"));
        } catch (RuntimeException e) {
            publish(id, () -> finish(cancelled ? "cancelled" : "error: " + describe(e, request)));
        }
    }

    private void finish(String line) {
        status.set(line);
        running.set(false);
        worker = null;
    }

    private void publish(long id, Runnable change) {
        ui.execute(() -> {
            if (id == generation) {
                change.run();
            }
        });
    }

    /**
     * The exception's message on one line; bad input says what and where already; anything else is said
     * in words, with what Java said on a details line.
     */
    static String describe(RuntimeException e, WhatIfRequest request) {
        String m = e.getMessage() == null ? "" : e.getMessage().strip().replaceAll("\\s*\\R\\s*", "; ");
        if (e instanceof IllegalArgumentException || e instanceof java.io.UncheckedIOException) {
            return m.isEmpty() ? "the replay of " + request.trace().getFileName() + " stopped on bad input" : m;
        }
        return "the replay of " + request.trace().getFileName() + " stopped on an internal error (please report it)"
                + "\ndetails: " + e.getClass().getSimpleName() + (m.isEmpty() ? "" : ": " + m);
    }

    /** The format a trace file's name tells, or null; {@code batch_task.csv} is v2017 unless v2018 is chosen. */
    static TraceFormat guessFormat(Path path, TraceFormat current) {
        if (path == null || path.getFileName() == null) {
            return null;
        }
        String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
        if (name.endsWith(".gz")) {
            name = name.substring(0, name.length() - 3);
        }
        if (name.endsWith(".swf")) {
            return TraceFormat.SWF;
        }
        if (name.endsWith(".json")) {
            return TraceFormat.JSON;
        }
        if (name.contains("openb_pod_list")) {
            return TraceFormat.GPU_2023;
        }
        if (name.contains("batch_task")) {
            return current == TraceFormat.ALIBABA_2018 ? current : TraceFormat.ALIBABA_2017;
        }
        return null;
    }
}
