package granary.canary;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

import granary.api.event.InputEvent;
import granary.api.event.OutputEvent;
import granary.api.event.Receipt;
import granary.api.model.Clock;
import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;
import granary.engine.Engine;
import granary.engine.EngineOptions;

/**
 * One shadow canary beside a live {@link Engine} (docs/canary.md): start a candidate selection in
 * shadow, report live beside shadow, promote the candidate atomically with a guard metric that rolls
 * back by itself, roll back by hand, stop. Every method runs on the live engine's thread (in the
 * runtime through {@link granary.engine.EngineHost}); nothing here has a thread or a lock.
 */
public final class Canary {

    /** Phases (docs/canary.md, "Phases"). */
    public enum Phase { IDLE, SHADOW, WINDOW_DONE, WATCHING, KEPT, ROLLED_BACK }

    public static final long MAX_SECONDS = 7 * 24 * 3600;
    public static final double MAX_MARGIN_PERCENT = 1000;

    private final Engine live;
    private final Clock clock;
    private final CandidatePolicies source;
    private final long timeoutMillis;
    private final Consumer<String> logger;
    private final Consumer<InputEvent> watcher = this::liveEvent;
    private final Consumer<OutputEvent> decisions = this::liveDecision;
    private final List<OutputEvent> pendingLive = new ArrayList<>();
    private final List<String> log = new ArrayList<>();

    private Phase phase = Phase.IDLE;
    private List<String> candidate = List.of();
    private List<String> liveSelection = List.of();
    private long windowMillis;
    private long windowEnd;
    private Shadow shadow;
    private long divergences;
    private List<String> divergenceMessages = List.of();
    private SideMetrics liveMetrics;
    private SideMetrics shadowMetrics;
    private SideMetrics watchMetrics;
    private EngineOptions previous;
    private Metric guard;
    private double margin;
    private double baseline;
    private long watchEnd;

    /**
     * @param timeoutMillis the wait-for-resource mark: a unit waiting longer is a timeout (10 s)
     * @param logger        told each promotion, rollback and end of window (the runtime prints them)
     */
    public Canary(Engine live, Clock clock, CandidatePolicies source, long timeoutMillis, Consumer<String> logger) {
        this.live = live;
        this.clock = clock;
        this.source = source;
        this.timeoutMillis = timeoutMillis;
        this.logger = logger;
    }

    public Phase phase() {
        return phase;
    }

    /** Starts a shadow of {@code policies} (a selection, in order) for a window; says what it started. */
    public String start(List<String> policies, long windowSeconds) {
        if (phase == Phase.SHADOW || phase == Phase.WATCHING) {
            throw new InvalidRequestException("canary", "state", "a canary is " + phase.name().toLowerCase(Locale.ROOT)
                    + " (candidate " + String.join(",", candidate) + "); canary-stop first");
        }
        requireSeconds("windowSeconds", windowSeconds);
        if (policies.isEmpty()) {
            throw new InvalidRequestException("canary", "policies", "names no policy; policies: " + String.join(", ", source.names()));
        }
        for (String p : policies) {
            if (!source.names().contains(p)) {
                throw unknownPolicy(p, source.names());
            }
        }
        long now = clock.millis();
        EngineOptions options = live.options();
        Shadow s = Shadow.seed(live.view(), clock, policies, options.fallback(), source);
        reset();
        shadow = s;
        candidate = List.copyOf(policies);
        liveSelection = options.policies();
        windowMillis = windowSeconds * 1000;
        windowEnd = now + windowMillis;
        liveMetrics = new SideMetrics(now, timeoutMillis, live.view());
        shadowMetrics = new SideMetrics(now, timeoutMillis, shadow.view());
        live.subscribe(decisions);
        live.watchInputs(watcher);
        phase = Phase.SHADOW;
        return say("canary started: candidate " + String.join(",", candidate) + " beside live "
                + String.join(",", liveSelection) + " for " + windowSeconds + " s");
    }

    /** Promotes the candidate now; the guard watches the live engine for {@code watchSeconds}. */
    public String promote(String guardId, double marginPercent, long watchSeconds) {
        Metric m = Metric.of(guardId);
        if (m == null) {
            throw new InvalidRequestException("canary-promote", "guard", "'" + guardId + "' is not a metric; metrics: " + Metric.ids());
        }
        if (!(marginPercent >= 0 && marginPercent <= MAX_MARGIN_PERCENT)) {
            throw new InvalidRequestException(Problem.of("canary-promote", "marginPercent", "must be between 0 and "
                    + (long) MAX_MARGIN_PERCENT + " percent, got " + marginPercent));
        }
        requireSeconds("watchSeconds", watchSeconds);
        if (phase != Phase.SHADOW && phase != Phase.WINDOW_DONE) {
            throw noCanary("promote");
        }
        long now = clock.millis();
        endWindow(now);
        guard = m;
        margin = marginPercent / 100;
        baseline = guardValue(liveMetrics, now);
        previous = live.options();
        Receipt r = live.configure(previous.withPolicies(candidate));
        watchMetrics = new SideMetrics(now, timeoutMillis, live.view());
        watchEnd = now + watchSeconds * 1000;
        live.subscribe(decisions);
        live.watchInputs(watcher);
        phase = Phase.WATCHING;
        return say("promoted: policies " + String.join(",", previous.policies()) + " -> " + String.join(",", candidate)
                + "; guard " + m.id() + " baseline " + guardText(baseline) + ", margin " + marginPercent + "%, watch "
                + watchSeconds + " s" + (r.notes().isEmpty() ? "" : "; " + String.join("; ", r.notes())));
    }

    /** Goes back to the selection before the promotion. */
    public String rollback() {
        if (phase != Phase.WATCHING && phase != Phase.KEPT) {
            throw noCanary("roll back");
        }
        return rollback("by hand");
    }

    /** Ends whatever runs: a shadow is dropped, a watch ends with the promotion kept. */
    public String stop() {
        if (phase == Phase.IDLE) {
            throw noCanary("stop");
        }
        String was = phase.name().toLowerCase(Locale.ROOT);
        detach();
        closeShadow();
        phase = Phase.IDLE;
        return say("canary stopped (was " + was + ")");
    }

    /** Live beside shadow over the window, and what happened. */
    public CanaryReport report() {
        if (liveMetrics == null) {
            throw noCanary("report");
        }
        long now = clock.millis();
        List<CanaryReport.Row> rows = new ArrayList<>();
        for (Metric m : Metric.values()) {
            rows.add(new CanaryReport.Row(m, "*", liveMetrics.value(m, null, now), shadowMetrics.value(m, null, now)));
        }
        java.util.SortedSet<String> groups = liveMetrics.groups();
        groups.addAll(shadowMetrics.groups());
        for (String g : groups) {
            for (Metric m : Metric.values()) {
                if (m != Metric.UTILISATION) {
                    rows.add(new CanaryReport.Row(m, g, liveMetrics.value(m, g, now), shadowMetrics.value(m, g, now)));
                }
            }
        }
        List<String> lines = new ArrayList<>(log);
        if (phase == Phase.WATCHING) {
            lines.add("guard " + guard.id() + ": baseline " + guardText(baseline) + ", watch " + guardText(guardValue(watchMetrics, now))
                    + " after " + watchMetrics.elapsed(now) / 1000 + " s, margin " + margin * 100 + "%");
        }
        return new CanaryReport(phase.name().toLowerCase(Locale.ROOT), liveSelection, candidate, liveMetrics.elapsed(now),
                windowMillis, rows, shadow != null ? shadow.divergences() : divergences,
                shadow != null ? shadow.messages() : divergenceMessages, lines);
    }

    // ---- on the live engine's thread, inside its handle() ----

    private void liveDecision(OutputEvent e) {
        pendingLive.add(e);
    }

    private void liveEvent(InputEvent e) {
        long now = clock.millis();
        List<OutputEvent> mine = List.copyOf(pendingLive);
        pendingLive.clear();
        if (phase == Phase.SHADOW) {
            liveMetrics.observe(e, live.view(), mine, now);
            shadowMetrics.observe(e, shadow.view(), shadow.feed(e), now);
            if (now >= windowEnd) {
                endWindow(now);
                say("canary window of " + windowMillis / 1000 + " s done: canary-report compares, canary-promote promotes");
            }
        } else if (phase == Phase.WATCHING) {
            watchMetrics.observe(e, live.view(), mine, now);
            checkGuard(now);
        }
    }

    /**
     * The guard (docs/canary.md, "Promotion and rollback"): at the end of the watch the value over the
     * watch is compared with the baseline; a rate that is worse is also acted on before the end, as
     * soon as its count passes what the baseline allows over the whole watch.
     */
    private void checkGuard(long now) {
        double watched = guardValue(watchMetrics, now);
        boolean done = now >= watchEnd;
        boolean worse;
        if (guard.additive() && guard.higherIsWorse() && !done) {
            double allowed = baseline * (1 + margin) * (watchEnd - watchMetrics.elapsedStart()) / 60_000.0;
            worse = watchMetrics.value(guard, null, now) > allowed;
        } else if (done) {
            worse = worse(watched);
        } else {
            return;
        }
        if (worse) {
            rollback("automatically: " + guard.id() + " " + guardText(watched) + " against baseline " + guardText(baseline)
                    + ", worse by more than " + margin * 100 + "%");
        } else if (done) {
            detach();
            phase = Phase.KEPT;
            say("promotion kept: " + guard.id() + " " + guardText(watched) + " against baseline " + guardText(baseline)
                    + " over " + (watchEnd - watchMetrics.elapsedStart()) / 1000 + " s");
        }
    }

    private boolean worse(double watched) {
        if (Double.isNaN(watched) || Double.isNaN(baseline)) {
            return false;   // nothing to compare (no unit waited on one side)
        }
        return guard.higherIsWorse() ? watched > baseline * (1 + margin) : watched < baseline * (1 - margin);
    }

    private String rollback(String how) {
        detach();
        Receipt r = live.configure(previous);
        phase = Phase.ROLLED_BACK;
        return say("rolled back " + how + ": policies " + String.join(",", candidate) + " -> "
                + String.join(",", previous.policies()) + (r.notes().isEmpty() ? "" : "; " + String.join("; ", r.notes())));
    }

    /** A rate per minute for the summed metrics, else the value itself. */
    private double guardValue(SideMetrics side, long now) {
        double v = side.value(guard, null, now);
        return guard.additive() ? v * 60_000.0 / Math.max(1, side.elapsed(now)) : v;
    }

    private String guardText(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        return guard.additive() ? String.format(Locale.ROOT, "%.2f/min", v)
                : guard == Metric.UTILISATION ? String.format(Locale.ROOT, "%.1f%%", v * 100)
                : String.format(Locale.ROOT, "%.0f ms", v);
    }

    private void endWindow(long now) {
        if (phase == Phase.SHADOW) {
            liveMetrics.freeze(now, live.view());
            shadowMetrics.freeze(now, shadow.view());
            detach();
            closeShadow();
            phase = Phase.WINDOW_DONE;
        }
    }

    private void closeShadow() {
        if (shadow != null) {
            divergences = shadow.divergences();
            divergenceMessages = shadow.messages();
            shadow.close();
            shadow = null;
        }
    }

    private void detach() {
        live.unwatchInputs(watcher);
        live.unsubscribe(decisions);
        pendingLive.clear();
    }

    private void reset() {
        log.clear();
        divergences = 0;
        divergenceMessages = List.of();
        watchMetrics = null;
        previous = null;
        guard = null;
    }

    private String say(String line) {
        log.add("t=" + clock.millis() + " " + line);
        logger.accept("granary canary: " + line);
        return line;
    }

    private static void requireSeconds(String field, long seconds) {
        if (seconds < 1 || seconds > MAX_SECONDS) {
            throw new InvalidRequestException(Problem.of("canary", field, "must be between 1 and " + MAX_SECONDS
                    + " seconds, got " + seconds, MAX_SECONDS, seconds));
        }
    }

    private InvalidRequestException noCanary(String what) {
        return new InvalidRequestException("canary", "state", "cannot " + what + ": "
                + (phase == Phase.IDLE ? "no canary running; canary-start first" : "the canary is " + phase.name().toLowerCase(Locale.ROOT)));
    }

    static InvalidRequestException unknownPolicy(String name, Collection<String> names) {
        return new InvalidRequestException("canary", "policies", "'" + name + "' is not installed; policies: "
                + String.join(", ", names));
    }

    /** A comma-separated selection as the console takes it. */
    public static List<String> selection(String text) {
        return Arrays.stream(text.split("[,|]")).map(String::trim).filter(s -> !s.isEmpty()).toList();
    }
}
