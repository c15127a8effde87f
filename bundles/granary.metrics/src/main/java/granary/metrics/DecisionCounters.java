package granary.metrics;

import java.util.Locale;
import java.util.function.Consumer;

import granary.api.event.ClockTick;
import granary.api.event.GrantReleased;
import granary.api.event.Granted;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.JobsSubmitted;
import granary.api.event.OutputEvent;
import granary.api.event.PolicyActivated;
import granary.api.event.PolicyDeactivated;
import granary.api.event.PolicyFailed;
import granary.api.event.PolicyInstalled;
import granary.api.event.PolicyReconfigured;
import granary.api.event.PolicyUninstalled;
import granary.api.event.Revoked;
import granary.api.model.InvalidRequestException;
import granary.api.model.UnitKind;
import granary.api.spi.ReasonCode;
import granary.engine.HandlingListener;
import io.prometheus.metrics.config.PrometheusProperties;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * The counters that follow the engine as it decides: grants and revocations (the {@code Scheduler}'s
 * output events), and every input event with its outcome and how long the engine took (the live
 * loop's {@link HandlingListener}), from which releases and policy changes are counted too.
 *
 * <p>Both callbacks run on the engine thread: they look up a labelled series and increment it (the
 * library's counters and histograms do not lock), and never block.
 */
final class DecisionCounters implements Consumer<OutputEvent>, HandlingListener {

    /** From 10 µs to 10 s: a cycle over a few units takes microseconds, a large batch or a policy swap much longer. */
    static final double[] DURATION_BUCKETS = {0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
            0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

    private static final String[] CHANGES = {"activated", "deactivated", "installed", "uninstalled", "reconfigured", "failed"};
    /**
     * The refusal reasons whose series exist from the start, at 0: the engine's own refusals of a
     * submission. A policy's reason codes get their series when first counted.
     */
    static final String[] INITIAL_REASONS = {InvalidRequestException.INVALID, InvalidRequestException.DUPLICATE,
        ReasonCode.TOO_LARGE.name().toLowerCase(Locale.ROOT)};

    private final Counter grants;
    private final Counter grantedSlots;
    private final Counter revocations;
    private final Counter revokedSlots;
    private final Counter releases;
    private final Counter releasedSlots;
    private final Counter events;
    private final Counter policyChanges;
    private final Counter refusedSubmissions;
    private final Counter refusedJobs;
    private final Histogram durations;

    DecisionCounters(PrometheusRegistry registry, PrometheusProperties properties) {
        grants = Counter.builder(properties).name("granary_grants_total").withoutExemplars()
                .help("Grant decisions: a unit got slots on a node (the engine's Granted events), by unit kind.")
                .labelNames("kind").register(registry);
        grantedSlots = Counter.builder(properties).name("granary_granted_slots_total").withoutExemplars()
                .help("Slots granted by those decisions, by unit kind.").labelNames("kind").register(registry);
        revocations = Counter.builder(properties).name("granary_revocations_total").withoutExemplars()
                .help("Revocation decisions: the master took slots back (preemption, lost or removed node, shrunk capacity, "
                        + "cancelled unit), by unit kind.")
                .labelNames("kind").register(registry);
        revokedSlots = Counter.builder(properties).name("granary_revoked_slots_total").withoutExemplars()
                .help("Slots taken back by those decisions, by unit kind.").labelNames("kind").register(registry);
        releases = Counter.builder(properties).name("granary_releases_total").withoutExemplars()
                .help("Releases accepted: a job master gave slots back because their work was done (GrantReleased events).")
                .register(registry);
        releasedSlots = Counter.builder(properties).name("granary_released_slots_total").withoutExemplars()
                .help("Slots given back by those releases.").register(registry);
        events = Counter.builder(properties).name("granary_engine_events_total").withoutExemplars()
                .help("Input events the engine handled, each followed by one scheduling cycle, by event type and outcome "
                        + "(accepted, or refused: nothing changed); ClockTick includes the idle ticks.")
                .labelNames("event", "outcome").register(registry);
        policyChanges = Counter.builder(properties).name("granary_policy_changes_total").withoutExemplars()
                .help("Policy changes the engine accepted: activated, deactivated (operator selections), installed, uninstalled "
                        + "(policy bundles started and stopped, new configurations), reconfigured (commands), failed (a "
                        + "configuration refused).")
                .labelNames("change").register(registry);
        refusedSubmissions = Counter.builder(properties).name("granary_submissions_refused_total").withoutExemplars()
                .help("Job submissions the engine refused (nothing of them was accepted: a refused job is never in "
                        + "granary_jobs), from the console, the demo or a job master, by submission: job (one job) or batch "
                        + "(a file or list of jobs, refused whole), and reason: invalid, duplicate (an id in use), too_large "
                        + "(larger than every node, or a queue's maximum), a policy's reason code in lower case such as "
                        + "unknown_group (a group the quota table does not fund), or error (a fault). The refusal the sender "
                        + "got says it in full.")
                .labelNames("submission", "reason").register(registry);
        refusedJobs = Counter.builder(properties).name("granary_refused_jobs_total").withoutExemplars()
                .help("The jobs in those refused submissions, by reason.").labelNames("reason").register(registry);
        durations = Histogram.builder(properties).name("granary_engine_event_duration_seconds").withoutExemplars()
                .help("Decision latency: how long the engine took per input event, from validation through its scheduling "
                        + "cycle (measured by the live event loop around Engine.handle), by event type.")
                .labelNames("event").classicOnly().classicUpperBounds(DURATION_BUCKETS).register(registry);
        // series that exist from the start, at 0, so that rate() sees their first increase
        for (UnitKind k : UnitKind.values()) {
            for (Counter c : new Counter[] {grants, grantedSlots, revocations, revokedSlots}) {
                c.initLabelValues(kind(k));
            }
        }
        for (String change : CHANGES) {
            policyChanges.initLabelValues(change);
        }
        for (String reason : INITIAL_REASONS) {
            refusedSubmissions.initLabelValues("job", reason);
            refusedSubmissions.initLabelValues("batch", reason);
            refusedJobs.initLabelValues(reason);
        }
    }

    /** A grant or revocation, on the engine thread. */
    @Override
    public void accept(OutputEvent e) {
        if (e instanceof Granted g) {
            String kind = kind(g.kind());
            grants.labelValues(kind).inc();
            grantedSlots.labelValues(kind).inc(g.slots());
        } else if (e instanceof Revoked r) {
            String kind = kind(r.kind());
            revocations.labelValues(kind).inc();
            revokedSlots.labelValues(kind).inc(r.slots());
        }
    }

    /** An input event handled, on the engine thread. */
    @Override
    public void handled(InputEvent event, long nanos, String refusal) {
        String type = event.getClass().getSimpleName();
        events.labelValues(type, refusal == null ? "accepted" : "refused").inc();
        durations.labelValues(type).observe(nanos / 1e9);
        if (refusal != null) {
            refused(event, refusal);
            return;
        }
        if (event instanceof ClockTick) {
            return;
        }
        if (event instanceof GrantReleased r) {
            releases.inc();
            releasedSlots.inc(r.slots());
        }
        String change = policyChange(event);
        if (change != null) {
            policyChanges.labelValues(change).inc();
        }
    }

    /** A refused job submission counts (docs/operations.md, "Metrics"); other refused events only in the event counter. */
    private void refused(InputEvent event, String reason) {
        if (event instanceof JobSubmitted) {
            refusedSubmissions.labelValues("job", reason).inc();
            refusedJobs.labelValues(reason).inc();
        } else if (event instanceof JobsSubmitted batch) {
            refusedSubmissions.labelValues("batch", reason).inc();
            refusedJobs.labelValues(reason).inc(batch.jobs().size());
        }
    }

    private static String policyChange(InputEvent e) {
        if (e instanceof PolicyActivated) {
            return "activated";
        }
        if (e instanceof PolicyDeactivated) {
            return "deactivated";
        }
        if (e instanceof PolicyInstalled) {
            return "installed";
        }
        if (e instanceof PolicyUninstalled) {
            return "uninstalled";
        }
        if (e instanceof PolicyReconfigured) {
            return "reconfigured";
        }
        if (e instanceof PolicyFailed) {
            return "failed";
        }
        return null;
    }

    private static String kind(UnitKind k) {
        return k == null ? "offline" : k.name().toLowerCase(Locale.ROOT);
    }
}
