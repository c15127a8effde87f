package granary.planner.live;

import java.net.URI;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import granary.planner.live.model.ClusterModel;
import granary.planner.live.model.Coalescer;
import granary.planner.live.model.Frame;
import granary.planner.live.model.NodeReports;
import granary.planner.live.model.UsageHistory;
import granary.planner.master.ApiError;
import granary.planner.master.MasterClient;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;

/**
 * The live view's state and commands (docs/planner.md): a master's allocation stream read into a
 * {@link ClusterModel} on a thread of its own, published through a {@link Coalescer} at most once
 * per pulse as a {@link Frame}; the quota policy's state polled every few seconds; a job's
 * why-not-scheduled answer fetched off the UI thread. Every property and list changes on the UI
 * executor only.
 */
public final class LiveViewModel implements AutoCloseable {

    /**
     * How often things happen.
     *
     * @param pulseMillis      the shortest time between two frames (33: at most 30 a second)
     * @param quotaPollMillis  how often the quota state is read
     * @param jobsMillis       how often the jobs list is refreshed (a list that changes 30 times a second cannot be clicked)
     * @param minBackoffMillis the first wait before reconnecting; doubled per failure up to
     * @param maxBackoffMillis the longest wait
     * @param silenceMillis    how long a stream may give nothing (not even the 15-second keep-alive) before it is reopened
     * @param historySampleMillis one sample of each group's use per this many ms of wall time
     * @param historySpanMillis   how far back the groups' history reaches (an hour)
     */
    public record Timing(long pulseMillis, long quotaPollMillis, long jobsMillis, long minBackoffMillis, long maxBackoffMillis,
                         long silenceMillis, long historySampleMillis, long historySpanMillis) {
        public static final Timing DEFAULT = new Timing(33, 5000, 1000, 500, 10_000, 45_000);

        /** With the groups' history at one sample per 10 s over the last hour. */
        public Timing(long pulseMillis, long quotaPollMillis, long jobsMillis, long minBackoffMillis, long maxBackoffMillis,
                      long silenceMillis) {
            this(pulseMillis, quotaPollMillis, jobsMillis, minBackoffMillis, maxBackoffMillis, silenceMillis, 10_000, 3_600_000);
        }
    }

    private final Executor ui;
    private final Timing timing;
    private final ScheduledExecutorService background = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "granary-live-background");
        t.setDaemon(true);
        return t;
    });

    private final StringProperty masterUrl = new SimpleStringProperty(this, "masterUrl", "http://127.0.0.1:7070");
    private final StringProperty token = new SimpleStringProperty(this, "token", "");
    private final ReadOnlyObjectWrapper<ConnectionState> state = new ReadOnlyObjectWrapper<>(this, "state", ConnectionState.DISCONNECTED);
    private final ReadOnlyStringWrapper connectionText = new ReadOnlyStringWrapper(this, "connectionText", "not connected");
    private final ReadOnlyObjectWrapper<Frame> frame = new ReadOnlyObjectWrapper<>(this, "frame");
    private final ReadOnlyStringWrapper stats = new ReadOnlyStringWrapper(this, "stats", "");
    private final ReadOnlyStringWrapper slice = new ReadOnlyStringWrapper(this, "slice", "slice: not connected");
    private final ReadOnlyStringWrapper selectedJob = new ReadOnlyStringWrapper(this, "selectedJob");
    private final ReadOnlyStringWrapper why = new ReadOnlyStringWrapper(this, "why", "");
    private final ReadOnlyStringWrapper nodeDetail = new ReadOnlyStringWrapper(this, "nodeDetail", "");
    private final ReadOnlyStringWrapper frameTimesText = new ReadOnlyStringWrapper(this, "frameTimesText", "");
    private final ReadOnlyStringWrapper lastUpdate = new ReadOnlyStringWrapper(this, "lastUpdate");
    private final javafx.beans.property.ReadOnlyBooleanWrapper stale = new javafx.beans.property.ReadOnlyBooleanWrapper(this, "stale");
    private final ReadOnlyStringWrapper staleText = new ReadOnlyStringWrapper(this, "staleText", "");
    private static final java.time.format.DateTimeFormatter HMS = java.time.format.DateTimeFormatter.ofPattern("HH:mm:ss");
    private final ObservableList<GroupRow> groups = FXCollections.observableArrayList();
    private final ObservableList<QueueRow> queues = FXCollections.observableArrayList();
    private final ObservableList<JobRow> jobs = FXCollections.observableArrayList();
    private final ObservableList<RoomRow> rooms = FXCollections.observableArrayList();
    private final ObservableList<String> waiting = FXCollections.observableArrayList();
    private final ReadOnlyStringWrapper waitingText = new ReadOnlyStringWrapper(this, "waitingText", "");
    // one read-only view of each list, so that every listener listens to the same object
    private final ObservableList<GroupRow> groupsShown = FXCollections.unmodifiableObservableList(groups);
    private final ObservableList<QueueRow> queuesShown = FXCollections.unmodifiableObservableList(queues);
    private final ObservableList<JobRow> jobsShown = FXCollections.unmodifiableObservableList(jobs);
    private final FrameTimes frameTimes = new FrameTimes();

    /**
     * Each group's last hour, and the master it is of: a connection to the same master again (after a
     * dropped stream, or Disconnect and Connect) goes on with it; another master starts a new one.
     */
    private UsageHistory history;
    private String historyOf;
    /** The most groups whose history is kept (360 samples of two numbers each: under 6 MB in all). */
    private static final int HISTORY_GROUPS = 1000;
    private final ReadOnlyObjectWrapper<NodeReports> nodeReports = new ReadOnlyObjectWrapper<>(this, "nodeReports", NodeReports.NONE);

    /** The connection in use; replaced as a whole, so that a late callback of an old one is recognised and dropped. */
    private volatile Session session;
    private QuotaSummary quota = QuotaSummary.none("slice: not read yet");
    private long lastJobsMillis;
    private long lastStatsMillis;
    private long lastStatsEvents;
    private double eventsPerSecond;
    private long lastFrameTextMillis;

    /** One connection: its client, model, subscription, coalescer and quota poll. */
    private final class Session {
        final MasterClient client;
        final ClusterModel model;
        final Coalescer coalescer;
        final StreamSubscription subscription;
        ScheduledFuture<?> quotaPoll;
        String tableRevision;
        MasterClient.InForce table;

        Session(MasterClient client, UsageHistory history) {
            this.client = client;
            this.model = new ClusterModel(history);
            this.coalescer = new Coalescer(model, ui, f -> {
                if (session == this) {
                    show(f);
                }
            }, timing.pulseMillis(), System::currentTimeMillis);
            model.feeding(false);
            this.subscription = new StreamSubscription(client, model, (s, text) -> {
                model.feeding(s == ConnectionState.CONNECTED);
                onUi(this, () -> {
                    state.set(s);
                    connectionText.set(text);
                });
            }, timing.minBackoffMillis(), timing.maxBackoffMillis(), timing.silenceMillis());
        }

        void start() {
            coalescer.start();
            subscription.start();
            quotaPoll = background.scheduleWithFixedDelay(() -> pollQuota(this), 0, timing.quotaPollMillis(), TimeUnit.MILLISECONDS);
        }

        void stop() {
            if (quotaPoll != null) {
                quotaPoll.cancel(true);
            }
            subscription.close();
            coalescer.close();
        }
    }

    /** @param ui runs work on the UI thread: {@code Platform::runLater} in the application, a direct executor in tests */
    public LiveViewModel(Executor ui) {
        this(ui, Timing.DEFAULT);
    }

    public LiveViewModel(Executor ui, Timing timing) {
        this.ui = Objects.requireNonNull(ui, "ui");
        this.timing = Objects.requireNonNull(timing, "timing");
        state.addListener((o, was, now) -> updateStale());
        frame.addListener((o, was, now) -> updateStale());
    }

    /**
     * True while a frame is shown but the stream does not feed it (disconnected, reconnecting, failed):
     * what is shown is the past, and the view greys it out.
     */
    public javafx.beans.property.ReadOnlyBooleanProperty staleProperty() {
        return stale.getReadOnlyProperty();
    }

    /** When the last frame came, {@code hh:mm:ss} (the planner's clock); null before the first. */
    public ReadOnlyStringProperty lastUpdateProperty() {
        return lastUpdate.getReadOnlyProperty();
    }

    /** While stale: {@code disconnected: last update 14:02:07}; else empty. */
    public ReadOnlyStringProperty staleTextProperty() {
        return staleText.getReadOnlyProperty();
    }

    private void updateStale() {
        boolean now = frame.get() != null && state.get() != ConnectionState.CONNECTED;
        stale.set(now);
        staleText.set(!now ? "" : switch (state.get()) {
            case RECONNECTING -> "reconnecting";
            case CONNECTING -> "connecting";
            case FAILED -> "not connected";
            default -> "disconnected";
        } + ": not live, last update " + (lastUpdate.get() == null ? "unknown" : lastUpdate.get()));
    }

    // ---- commands ----

    /** Connects to {@link #masterUrlProperty()} with {@link #tokenProperty()}; a malformed address fails at once, saying so. */
    public void connect() {
        String url = masterUrl.get() == null ? "" : masterUrl.get().trim();
        String expected = "'" + url + "' is not a master's address: expected http://HOST:PORT, e.g. http://127.0.0.1:7070";
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            fail(expected + " (" + e.getMessage() + ")");
            return;
        }
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
            fail(expected);
            return;
        }
        connect(new MasterClient(uri, token.get()));
    }

    /** Subscribes to {@code client}'s master (leaving any other): the stream, the quota state. */
    public void connect(MasterClient client) {
        disconnect();
        String master = client.api().toString();
        if (!master.equals(historyOf)) {
            history = new UsageHistory(timing.historySampleMillis(), timing.historySpanMillis(), HISTORY_GROUPS);
            historyOf = master;
            nodeReports.set(NodeReports.NONE);
        }
        Session s = new Session(client, history);
        session = s;
        String api = client.api().toString();
        masterUrl.set(api.endsWith("/api/v1") ? api.substring(0, api.length() - "/api/v1".length()) : api);
        state.set(ConnectionState.CONNECTING);
        connectionText.set("connecting to " + client.api());
        quota = QuotaSummary.none("slice: reading the quota state");
        slice.set(quota.text());
        s.start();
    }

    /** Stops reading the stream and polling; the last frame stays shown. */
    public void disconnect() {
        Session s = session;
        session = null;
        if (s != null) {
            s.stop();
            state.set(ConnectionState.DISCONNECTED);
            connectionText.set("disconnected from " + s.client.api());
        }
    }

    /** Shows why job {@code id} waits: asks the master off the UI thread; {@link #whyProperty()} says it is asking, then the answer. */
    public void selectJob(String id) {
        String job = id == null ? null : id.trim();
        selectedJob.set(job);
        Session s = session;
        if (job == null || job.isEmpty()) {
            why.set("");
            return;
        }
        if (s == null) {
            why.set("not connected: connect to a master to ask why " + job + " waits");
            return;
        }
        why.set("asking " + s.client.api() + " why " + job + " waits...");
        background.execute(() -> {
            String text = whyText(s.client, job);
            onUi(s, () -> {
                if (job.equals(selectedJob.get())) {
                    why.set(text);
                }
            });
        });
    }

    /** Shows node {@code name}'s usage and the jobs holding slots on it (as seen on the stream). */
    public void selectNode(String name) {
        Session s = session;
        Frame f = frame.get();
        if (name == null || f == null) {
            nodeDetail.set("");
            return;
        }
        int i = f.topology().indexOf(name);
        if (i < 0) {
            nodeDetail.set("node " + name + " is not in the cluster any more");
            return;
        }
        String usage = NodeText.of(f, i, roomOf(f, i), nodeReports.get().of(name)).replace("\n", "; ");
        nodeDetail.set(usage);
        if (s != null) {
            background.execute(() -> {
                List<String> on = s.model.jobsOn(name);
                onUi(s, () -> nodeDetail.set(usage + (on.isEmpty() ? "" : "; jobs: " + String.join(", ", on.subList(0, Math.min(20, on.size())))
                        + (on.size() > 20 ? " and " + (on.size() - 20) + " more" : ""))));
            });
        }
    }

    private static String roomOf(Frame f, int i) {
        for (var r : f.topology().rooms()) {
            for (int n : r.nodes()) {
                if (n == i) {
                    return r.name();
                }
            }
        }
        return "?";
    }

    /**
     * One room of the cluster, summed: nodes, granted of capacity per resource, the mean of the nodes'
     * utilisation; what the nodes whose agents report use are using, and how many are unhealthy.
     */
    public record RoomRow(String room, int nodes, long grantedCpu, long capacityCpu, long grantedMem, long capacityMem,
                          double meanUtilisation, int blacklisted, int reporting, long usedCpu, long usedMem, int unhealthy) {
        /** As the room summary shows it. */
        public String text() {
            String use = reporting == 0 ? "; use not reported"
                    : String.format(Locale.ROOT, "; in use%s: cpu %s cores, memory %,d GiB", reporting == nodes ? "" : " (" + reporting
                    + " of " + nodes + " nodes report it)", NodeText.cores(usedCpu), usedMem / 1024);
            return String.format(Locale.ROOT, "%s: %d nodes, %.0f%% granted on average; cpu %s of %s cores, memory %,d of %,d GiB granted%s%s%s",
                    room, nodes, 100 * meanUtilisation, NodeText.cores(grantedCpu), NodeText.cores(capacityCpu),
                    grantedMem / 1024, capacityMem / 1024, use, blacklisted == 0 ? "" : ", " + blacklisted + " blacklisted",
                    unhealthy == 0 ? "" : ", " + unhealthy + " unhealthy");
        }
    }

    /** The frame's rooms, summed (the per-room summary), without the agents' reports. */
    public static List<RoomRow> rooms(Frame f) {
        return rooms(f, NodeReports.NONE);
    }

    /** The frame's rooms, summed, with what the agents report their nodes use. */
    public static List<RoomRow> rooms(Frame f, NodeReports reports) {
        List<RoomRow> out = new ArrayList<>();
        if (f == null) {
            return out;
        }
        String[] names = f.topology().names();
        for (var r : f.topology().rooms()) {
            long gc = 0, cc = 0, gm = 0, cm = 0, uc = 0, um = 0;
            double u = 0;
            int bl = 0, reporting = 0, sick = 0;
            for (int n : r.nodes()) {
                gc += f.grantedCpu(n);
                cc += f.capacityCpu(n);
                gm += f.grantedMem(n);
                cm += f.capacityMem(n);
                u += f.utilisation(n);
                bl += f.blacklisted(n) ? 1 : 0;
                NodeReports.Report rep = reports.of(names[n]);
                if (rep != null && rep.reportsUse()) {
                    reporting++;
                    uc += rep.usedCpu();
                    um += rep.usedMem();
                }
                sick += rep != null && rep.isUnhealthy() ? 1 : 0;
            }
            int count = r.nodes().length;
            out.add(new RoomRow(r.name(), count, gc, cc, gm, cm, count == 0 ? 0 : u / count, bl, reporting, uc, um, sick));
        }
        return out;
    }

    /**
     * The jobs that wait (want slots, hold none), read with the quota state ({@code GET /jobs?state=waiting},
     * the first 200 by id): ids, to be clicked for why.
     */
    public ObservableList<String> waitingJobs() {
        return FXCollections.unmodifiableObservableList(waiting);
    }

    /** How many jobs wait, and how many are listed; or why they cannot be read. */
    public ReadOnlyStringProperty waitingTextProperty() {
        return waitingText.getReadOnlyProperty();
    }

    /** Each room summed, refreshed with the jobs list (at most once a second). */
    public ObservableList<RoomRow> roomRows() {
        return FXCollections.unmodifiableObservableList(rooms);
    }

    /** Called by the view after each heatmap redraw: the frame-time figures. */
    public void frameDrawn(long nanos) {
        frameTimes.record(nanos);
        long now = System.currentTimeMillis();
        if (now - lastFrameTextMillis >= 500) {
            lastFrameTextMillis = now;
            frameTimesText.set(frameTimes.summary());
        }
    }

    @Override
    public void close() {
        disconnect();
        background.shutdownNow();
    }

    // ---- state ----

    public StringProperty masterUrlProperty() {
        return masterUrl;
    }

    public StringProperty tokenProperty() {
        return token;
    }

    public ReadOnlyObjectProperty<ConnectionState> stateProperty() {
        return state.getReadOnlyProperty();
    }

    /** What the connection is doing, and what is wrong when it is not working (401 bad token, unreachable address). */
    public ReadOnlyStringProperty connectionTextProperty() {
        return connectionText.getReadOnlyProperty();
    }

    /** The latest frame, at most one per pulse; null before the first. */
    public ReadOnlyObjectProperty<Frame> frameProperty() {
        return frame.getReadOnlyProperty();
    }

    /** Events applied, events a second, seq, problems in the stream. */
    public ReadOnlyStringProperty statsProperty() {
        return stats.getReadOnlyProperty();
    }

    /** The slice in force and the next boundary. */
    public ReadOnlyStringProperty sliceProperty() {
        return slice.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty selectedJobProperty() {
        return selectedJob.getReadOnlyProperty();
    }

    /** The master's why-not-scheduled sentences for the selected job, or what went wrong asking. */
    public ReadOnlyStringProperty whyProperty() {
        return why.getReadOnlyProperty();
    }

    public ReadOnlyStringProperty nodeDetailProperty() {
        return nodeDetail.getReadOnlyProperty();
    }

    /** The heatmap's redraw time, p50 and p99, refreshed twice a second. */
    public ReadOnlyStringProperty frameTimesTextProperty() {
        return frameTimesText.getReadOnlyProperty();
    }

    public FrameTimes frameTimes() {
        return frameTimes;
    }

    /**
     * What each node's agent last reported — cpu and memory in use, and why a node is unhealthy — read
     * from the master with the quota state ({@code GET /api/v1/agents}); {@link NodeReports#NONE} before.
     */
    public ReadOnlyObjectProperty<NodeReports> nodeReportsProperty() {
        return nodeReports.getReadOnlyProperty();
    }

    /** Every group's usage against its min and max, with the last hour. */
    public ObservableList<GroupRow> groups() {
        return groupsShown;
    }

    /** Waiting work per queue. */
    public ObservableList<QueueRow> queues() {
        return queuesShown;
    }

    /** The jobs holding the most slots (refreshed once a second). */
    public ObservableList<JobRow> jobs() {
        return jobsShown;
    }

    // ---- on the UI thread ----

    private void show(Frame f) {
        long now = System.currentTimeMillis();
        lastUpdate.set(java.time.LocalTime.ofInstant(java.time.Instant.ofEpochMilli(now), java.time.ZoneId.systemDefault()).format(HMS));
        frame.set(f);
        updateStale();
        if (now - lastStatsMillis >= 1000) {
            eventsPerSecond = lastStatsMillis == 0 ? 0 : (f.eventsApplied() - lastStatsEvents) * 1000.0 / (now - lastStatsMillis);
            lastStatsMillis = now;
            lastStatsEvents = f.eventsApplied();
        }
        stats.set(String.format(Locale.ROOT, "%,d nodes, %,d events applied (%,.0f/s), seq %d%s", f.topology().nodeCount(),
                f.eventsApplied(), eventsPerSecond, f.seq(),
                f.problems() == 0 ? "" : ", " + f.problems() + " skipped: " + f.lastProblems().get(f.lastProblems().size() - 1)));
        showGroups(f);
        List<QueueRow> qs = new ArrayList<>(f.groups().size());
        f.groups().forEach(g -> qs.add(new QueueRow(g.path(), g.waitingUnits(), g.waitingSlots(), g.usedSlots())));
        if (!qs.equals(queues)) {
            queues.setAll(qs);
        }
        if (now - lastJobsMillis >= timing.jobsMillis()) {
            lastJobsMillis = now;
            List<RoomRow> rs = rooms(f, nodeReports.get());
            if (!rs.equals(rooms)) {
                rooms.setAll(rs);
            }
            List<JobRow> js = new ArrayList<>(f.jobs().size());
            f.jobs().forEach(j -> js.add(new JobRow(j.job(), j.slots(), j.grants())));
            if (!js.equals(jobs)) {
                jobs.setAll(js);
            }
        }
    }

    private void showGroups(Frame f) {
        if (f == null) {
            return;
        }
        Map<String, Frame.GroupHistory> history = new HashMap<>();
        f.history().forEach(h -> history.put(h.path(), h));
        List<GroupRow> gs = new ArrayList<>(f.groups().size());
        for (Frame.GroupUsage g : f.groups()) {
            gs.add(new GroupRow(g.path(), g.usedSlots(), g.usedCpu(), g.usedMem(), quota.limits().get(g.path()), history.get(g.path())));
        }
        if (!gs.equals(groups)) {
            groups.setAll(gs);
        }
    }

    private void fail(String text) {
        disconnect();
        state.set(ConnectionState.FAILED);
        connectionText.set(text);
    }

    /** Runs {@code r} on the UI thread if {@code s} is still the connection in use. */
    private void onUi(Session s, Runnable r) {
        ui.execute(() -> {
            if (session == s) {
                r.run();
            }
        });
    }

    // ---- off the UI thread ----

    private void pollQuota(Session s) {
        QuotaSummary q;
        try {
            JsonObject st = s.client.tableState();
            JsonElement rev = st.get("revision");
            String revision = rev == null || rev.isJsonNull() ? null : rev.getAsString();
            if (s.table == null || !Objects.equals(revision, s.tableRevision)) {
                s.table = read(() -> s.client.table());
                s.tableRevision = revision;
            }
            q = QuotaSummary.of(st, s.table, ZonedDateTime.now());
        } catch (ApiError e) {
            q = QuotaSummary.none(e.status() == 404 || e.status() == 409
                    ? "no quota policy on this master (" + e.status() + " " + e.type() + ")" : "slice unknown: " + e.describe());
        } catch (RuntimeException e) {
            q = QuotaSummary.none("slice unknown: the quota state does not read: " + e);
        }
        List<String> ids = new ArrayList<>();
        String waitingLine;
        try {
            MasterClient.Page<MasterClient.JobSummary> page = s.client.waitingJobs(200);
            page.items().forEach(j -> ids.add(j.id() + "   " + j.queue() + ", wants " + j.desired() + " slots"));
            waitingLine = page.total() == 0 ? "no job waits" : page.total() + (page.total() == 1 ? " job waits" : " jobs wait")
                    + (page.total() > page.items().size() ? " (the first " + page.items().size() + " listed)" : "")
                    + ": click one for why";
        } catch (ApiError e) {
            waitingLine = "the waiting jobs cannot be read: " + e.getMessage();
        }
        NodeReports reports = readReports(s.client);
        String shownWaiting = waitingLine;
        QuotaSummary shown = q;
        onUi(s, () -> {
            nodeReports.set(reports);
            if (!rooms.isEmpty() && frame.get() != null) {
                rooms.setAll(rooms(frame.get(), reports));
            }
            waitingText.set(shownWaiting);
            if (!ids.equals(waiting)) {
                waiting.setAll(ids);
            }
            quota = shown;
            slice.set(shown.text());
            showGroups(frame.get());
        });
    }

    /** The agents' reports, or none with why (a master that keeps no agents answers 404). */
    private static NodeReports readReports(MasterClient client) {
        try {
            return NodeReports.of(client.agents());
        } catch (ApiError e) {
            return NodeReports.none(e.status() == 404 ? "this master lists no agents" : "the agents' reports cannot be read: " + e.describe());
        } catch (RuntimeException e) {
            return NodeReports.none("the agents' reports do not read: " + e.getMessage());
        }
    }

    private interface Call<T> {
        T call() throws ApiError;
    }

    private static <T> T read(Call<T> c) {
        try {
            return c.call();
        } catch (ApiError e) {
            return null;
        }
    }

    static String whyText(MasterClient client, String job) {
        JsonObject o;
        try {
            o = client.why(job);
        } catch (ApiError e) {
            if (e.status() == 404) {
                return "the master does not know job " + job + " (finished and cancelled jobs are forgotten): " + e.getMessage();
            }
            return "could not ask why " + job + " waits: " + e.describe();
        }
        StringBuilder sb = new StringBuilder("job ").append(job);
        if (o.has("queue")) {
            sb.append(" in ").append(o.get("queue").getAsString());
        }
        if (o.has("state")) {
            sb.append(", ").append(o.get("state").getAsString());
        }
        if (o.has("waitingSlots")) {
            sb.append(", ").append(o.get("waitingSlots").getAsLong()).append(" slots waiting");
        }
        sb.append('\n');
        if (o.has("sentences") && o.get("sentences").isJsonArray() && !o.getAsJsonArray("sentences").isEmpty()) {
            o.getAsJsonArray("sentences").forEach(x -> sb.append(x.getAsString()).append('\n'));
        } else {
            sb.append("(the master gave no reasons: nothing of it waits)\n");
        }
        return sb.toString().strip();
    }
}
