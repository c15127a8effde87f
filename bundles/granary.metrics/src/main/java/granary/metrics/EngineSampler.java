package granary.metrics;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import granary.api.event.Scheduler;
import granary.api.spi.EngineStatus;
import granary.api.spi.PolicyDeclaration;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * The engine's state at scrape time: one {@link Scheduler#query} per scrape reads an
 * {@link EngineSample}, waited for at most the configured time. If the engine does not answer in time
 * (a long cycle, a large batch) the scrape serves everything else and {@code granary_scrape_engine_timeout 1};
 * the query stays queued, and the next scrape waits for it instead of queueing another, so a busy
 * engine never collects a backlog of scrapes.
 */
final class EngineSampler implements MultiCollector {

    private final Scheduler scheduler;
    private final Supplier<? extends Collection<PolicyDeclaration>> declarations;
    private volatile Duration timeout;
    /** The last query; while not done, the engine has not answered it yet. Guarded by this. */
    private CompletableFuture<EngineSample> pending;

    EngineSampler(Scheduler scheduler, Supplier<? extends Collection<PolicyDeclaration>> declarations, Duration timeout) {
        this.scheduler = scheduler;
        this.declarations = declarations;
        this.timeout = timeout;
    }

    void timeout(Duration value) {
        this.timeout = value;
    }

    @Override
    public MetricSnapshots collect() {
        EngineSample sample = sample();
        List<MetricSnapshot> out = new ArrayList<>();
        out.add(Families.gauge("granary_scrape_engine_timeout",
                "1 if the engine did not answer this scrape's query within the configured wait: its state is missing from "
                        + "this scrape (the counters are complete).", sample == null ? 1 : 0));
        if (sample != null) {
            status(sample.status(), out);
            groups(sample, out);
            quotas(sample, out);
            List<Amounts.Amount> failed = sample.problems().stream()
                    .map(p -> new Amounts.Amount(Labels.of("report", p), 1)).toList();
            out.add(Families.gauge("granary_scrape_report_failed",
                    "1 for a policy/report whose read failed in this scrape (its values are missing).", failed));
        }
        return new MetricSnapshots(out);
    }

    /** The engine's answer, or null if it did not come in time (or failed). */
    private EngineSample sample() {
        CompletableFuture<EngineSample> f;
        synchronized (this) {
            // a query still queued from an earlier scrape (or a concurrent one) is waited for, not repeated
            if (pending == null || pending.isDone()) {
                Collection<PolicyDeclaration> policies = List.copyOf(declarations.get());
                pending = scheduler.query(v -> EngineSample.read(v, policies));
            }
            f = pending;
        }
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException ex) {
            return null;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static void status(EngineStatus s, List<MetricSnapshot> out) {
        out.add(Families.counter("granary_engine_decisions",
                "Grant and revoke decisions the engine made since it started (its own count: it survives a restart of the "
                        + "metrics bundle).", s.decisions()));
        out.add(Families.gauge("granary_nodes", "Nodes in the cluster.", s.nodes()));
        out.add(Families.gauge("granary_jobs", "Jobs not finished.", s.jobs()));
        out.add(Families.gauge("granary_waiting_units", "Units with remaining desire (waiting for slots).", s.waitingUnits()));
        out.add(Families.gauge("granary_waiting_slots", "Slots wanted and not granted, over all units.", s.waitingSlots()));
        out.add(Families.gauge("granary_used_slots", "Slots granted now, over all groups.", s.grantedSlots()));
        out.add(Families.gauge("granary_cluster_capacity", "The cluster's capacity, per resource in base units.",
                Amounts.of(Labels.EMPTY, s.capacity())));
        out.add(Families.gauge("granary_cluster_free", "Capacity not granted, per resource in base units.",
                Amounts.of(Labels.EMPTY, s.free())));
        out.add(Families.gauge("granary_engine_held",
                "1 while the engine holds all scheduling because a selected policy's configuration was refused and no "
                        + "instance of it is installed (docs/operations.md, \"Fail closed\").", s.held().isEmpty() ? 0 : 1));
        List<Amounts.Amount> inEffect = new ArrayList<>();
        for (Map.Entry<String, String> e : s.policies().entrySet()) {
            inEffect.add(new Amounts.Amount(Labels.of("point", e.getKey(), "policy", e.getValue()), 1));
        }
        out.add(Families.gauge("granary_policy_in_effect",
                "1 for the policy in effect at each extension point (policy=\"waiting\": none available).", inEffect));
        List<Amounts.Amount> refused = s.problems().keySet().stream()
                .map(p -> new Amounts.Amount(Labels.of("policy", p), 1)).toList();
        out.add(Families.gauge("granary_policy_configuration_refused",
                "1 for a policy whose last configuration was refused (the previous one, if any, stays in force).", refused));
    }

    private static void groups(EngineSample sample, List<MetricSnapshot> out) {
        List<Amounts.Amount> waitingUnits = new ArrayList<>();
        List<Amounts.Amount> waitingSlots = new ArrayList<>();
        List<Amounts.Amount> usedSlots = new ArrayList<>();
        List<Amounts.Amount> used = new ArrayList<>();
        List<Amounts.Amount> jobs = new ArrayList<>();
        List<Amounts.Amount> running = new ArrayList<>();
        for (EngineSample.GroupRow g : sample.groups()) {
            Labels l = Labels.of("group", g.name());
            waitingUnits.add(new Amounts.Amount(l, g.waitingUnits()));
            waitingSlots.add(new Amounts.Amount(l, g.waitingSlots()));
            usedSlots.add(new Amounts.Amount(l, g.usedSlots()));
            used.addAll(Amounts.of(l, g.used()));
            jobs.add(new Amounts.Amount(l, g.jobs()));
            running.add(new Amounts.Amount(l, g.runningJobs()));
        }
        out.add(Families.gauge("granary_group_waiting_units", "Units of the group (quota group or queue) with remaining desire.",
                waitingUnits));
        out.add(Families.gauge("granary_group_waiting_slots", "Slots the group's units want and do not hold.", waitingSlots));
        out.add(Families.gauge("granary_group_used_slots", "Slots granted to the group's units.", usedSlots));
        out.add(Families.gauge("granary_group_used", "Resources granted to the group's units, per resource in base units.", used));
        out.add(Families.gauge("granary_group_jobs", "Jobs of the group not finished.", jobs));
        out.add(Families.gauge("granary_group_running_jobs", "Jobs of the group that hold at least one slot.", running));
    }

    private static void quotas(EngineSample sample, List<MetricSnapshot> out) {
        List<Amounts.Amount> min = new ArrayList<>();
        List<Amounts.Amount> max = new ArrayList<>();
        List<Amounts.Amount> preempted = new ArrayList<>();
        List<Amounts.Amount> work = new ArrayList<>();
        for (EngineSample.QuotaRow q : sample.quotas()) {
            Labels l = Labels.of("policy", q.policy(), "group", q.group());
            min.addAll(Amounts.ofValue(l, q.min()));
            max.addAll(Amounts.ofValue(l, q.max()));
            if (q.preempted() != null) {
                preempted.add(new Amounts.Amount(l, q.preempted().doubleValue()));
            }
            if (q.preemptedWork() != null) {
                work.add(new Amounts.Amount(l, q.preemptedWork().doubleValue()));
            }
        }
        out.add(Families.gauge("granary_group_preempted_slots",
                "Slots preempted from a group since its policy instance started, from the quota report.", preempted));
        out.add(Families.gauge("granary_group_preempted_work_slot_seconds",
                "Work lost to preemption: the slot-seconds the slots preempted from a group had run, since its policy "
                        + "instance started (its rate over granary_group_used_slots is the share of the group's work lost).", work));
        out.add(Families.gauge("granary_group_quota_min",
                "A group's guarantee in force, from the quota report of each policy in effect that declares one "
                        + "(slots, or resources in base units).", min));
        out.add(Families.gauge("granary_group_quota_max",
                "A group's limit in force, from the quota report of each policy in effect that declares one.", max));
    }
}
