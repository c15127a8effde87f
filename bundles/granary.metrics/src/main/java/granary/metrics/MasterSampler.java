package granary.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import granary.master.DeliveryStats;
import granary.master.MasterMonitor;
import granary.master.PeerStatus;
import granary.master.RecoveryState;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Quantile;
import io.prometheus.metrics.model.snapshots.Quantiles;
import io.prometheus.metrics.model.snapshots.SummarySnapshot;
import io.prometheus.metrics.model.snapshots.SummarySnapshot.SummaryDataPointSnapshot;

/**
 * The master's protocol side at scrape time, from its {@link MasterMonitor} (not the engine thread).
 * Without one (a runtime that serves no protocol, or a standby under high availability) only
 * {@code granary_master_active 0} is served.
 */
final class MasterSampler implements MultiCollector {

    private static final String[] AGENT_STATES = {"live", "lost"};
    /** restarting: the master starts a lost one again; finished: every job it ran has ended. */
    private static final String[] JOB_MASTER_STATES = {"live", "lost", "restarting", "finished"};

    private final Supplier<MasterMonitor> monitor;

    MasterSampler(Supplier<MasterMonitor> monitor) {
        this.monitor = monitor;
    }

    @Override
    public MetricSnapshots collect() {
        MasterMonitor m = monitor.get();
        List<MetricSnapshot> out = new ArrayList<>();
        out.add(Families.gauge("granary_master_active",
                "1 while this runtime's master side serves agents and job masters (a single master, or the elected leader "
                        + "under high availability); 0 for a standby or a runtime without one.", m == null ? 0 : 1));
        if (m == null) {
            return new MetricSnapshots(out);
        }
        List<PeerStatus> agents = m.agents();
        List<PeerStatus> jobMasters = m.jobMasters();
        out.add(Families.gauge("granary_agents", "Agents that registered, by state (lost: silent past the agent timeout).",
                byState(agents, AGENT_STATES)));
        out.add(Families.gauge("granary_job_masters", "Job masters that connected, by state (lost: silent past their timeout "
                        + "with work running; restarting: the master starts it again; finished: every job it ran has ended).",
                byState(jobMasters, JOB_MASTER_STATES)));
        out.add(Families.gauge("granary_master_peer_silence_max_seconds",
                "The longest time since a live peer was last heard from, by role: near the heartbeat or poll period when "
                        + "healthy, rising towards the timeout before a peer is declared lost.",
                List.of(new Amounts.Amount(Labels.of("role", "agent"), silence(agents)),
                        new Amounts.Amount(Labels.of("role", "job_master"), silence(jobMasters)))));
        usage(agents, out);
        RecoveryState state = m.recoveryState();
        List<Amounts.Amount> states = new ArrayList<>();
        for (RecoveryState s : RecoveryState.values()) {
            states.add(new Amounts.Amount(Labels.of("state", s.name().toLowerCase(java.util.Locale.ROOT)), s == state ? 1 : 0));
        }
        out.add(Families.gauge("granary_master_recovery_state",
                "1 for the state the master is in after its start (docs/recovery.md): window_open (listening to peers, "
                        + "grants not applied yet), rebuilding, or serving.", states));
        MasterMonitor.Rebuilt rebuilt = m.lastRebuild();
        if (rebuilt != null) {
            out.add(Families.gauge("granary_master_recovery_rebuild_seconds",
                    "How long the last rebuild took, from the recovery window closing to the master serving again "
                            + "(docs/recovery.md, \"Rebuilding\").", rebuilt.nanos() / 1e9));
        }
        out.add(delivery(m.deliveryStats(), m.hintStats()));
        MasterMonitor.Batches b = m.batches();
        out.add(Families.counter("granary_master_messages",
                "Agents' and job masters' messages the master applied (docs/architecture.md, \"The master's loop\").", b.messages()));
        out.add(Families.counter("granary_master_message_turns",
                "Turns of the master's loop that applied messages: under load one turn applies every message waiting, with one "
                        + "engine cycle; messages / turns is the mean batch.", b.turns()));
        out.add(Families.counter("granary_master_messages_expired",
                "Messages the master did not apply because their time passed while they waited (answered 503; the peer sends "
                        + "them again): a master behind its peers.", b.expired()));
        return new MetricSnapshots(out);
    }

    /**
     * What the live agents say their nodes use now and whether they are fit for work (docs/agent.md,
     * "What is reported", "Node health"): in use beside granted, the cluster's capacity less its free.
     */
    private static void usage(List<PeerStatus> agents, List<MetricSnapshot> out) {
        granary.api.model.Resources inUse = granary.api.model.Resources.ZERO;
        long reporting = 0;
        long unhealthy = 0;
        for (PeerStatus a : agents) {
            if (!a.state().equals("live")) {
                continue;
            }
            if (a.used() != null) {
                inUse = inUse.plus(a.used());
                reporting++;
            }
            if (!a.unhealthy().isEmpty()) {
                unhealthy++;
            }
        }
        out.add(Families.gauge("granary_cluster_in_use",
                "What the nodes use now, as their agents last said, per resource in base units, summed over the live agents "
                        + "that report it (granary_agents_reporting_usage); granted is granary_cluster_capacity less "
                        + "granary_cluster_free.", Amounts.of(Labels.EMPTY, inUse)));
        out.add(Families.gauge("granary_agents_reporting_usage",
                "Live agents whose heartbeats say what their node uses (agents of protocol version 6 and later).", reporting));
        out.add(Families.gauge("granary_agents_unhealthy",
                "Live agents that say their node is not fit for work (launches failing, a failed health check): it gets "
                        + "no new work until they say it is.", unhealthy));
    }

    private static List<Amounts.Amount> byState(List<PeerStatus> peers, String[] states) {
        List<Amounts.Amount> out = new ArrayList<>();
        for (String state : states) {
            long n = peers.stream().filter(p -> p.state().equals(state)).count();
            out.add(new Amounts.Amount(Labels.of("state", state), n));
        }
        return out;
    }

    private static double silence(List<PeerStatus> peers) {
        return peers.stream().filter(p -> p.state().equals("live")).mapToLong(PeerStatus::silentMillis).max().orElse(0) / 1000.0;
    }

    /** The master's own count and sum over every delivery, and its quantiles over the last ones kept, by the peer's role. */
    private static MetricSnapshot delivery(DeliveryStats caps, DeliveryStats hints) {
        return SummarySnapshot.builder().name("granary_master_delivery_latency_seconds")
                .help("Delivery latency: from a change of grants to the cap (role agent) or hint (role job_master) carrying it "
                        + "leaving the master; quantiles over the last 65536 deliveries, count and sum over all.")
                .dataPoint(point(caps, "agent")).dataPoint(point(hints, "job_master"))
                .build();
    }

    private static SummaryDataPointSnapshot point(DeliveryStats d, String role) {
        Quantiles q = d.count() == 0 ? Quantiles.EMPTY
                : Quantiles.of(new Quantile(0.5, d.p50Millis() / 1000.0), new Quantile(0.99, d.p99Millis() / 1000.0));
        return SummaryDataPointSnapshot.builder().labels(Labels.of("role", role)).count(d.count()).sum(d.sumMillis() / 1000.0)
                .quantiles(q).build();
    }
}
