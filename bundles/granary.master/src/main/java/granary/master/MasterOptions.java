package granary.master;

import java.time.Duration;
import java.util.Objects;

/**
 * How the master's protocol side behaves.
 *
 * @param name              the master's id on the wire ({@code master/<name>})
 * @param incarnation       this life of the master; larger after every restart (start time in ms)
 * @param agentTimeout      an agent silent this long is lost: its node is removed (offline grants
 *                          revoked and re-run elsewhere) or, when it holds online work, blacklisted
 *                          so nothing new lands there (docs/protocol.md, "Timeouts")
 * @param jobMasterTimeout  a job master silent this long is lost: its offline jobs are cancelled,
 *                          its online jobs kept
 * @param maxPlacements     most placements, exits and plan passes together in one hint (or entries in
 *                          one cap); the rest follow in the next. 2,000 keeps a hint under half the
 *                          wire's 1 MiB limit (a placement with its endpoint and a pass are each
 *                          under 250 bytes)
 *                          in the next envelope, so that none exceeds the message size limit
 * @param engineTimeout     longest wait for the engine to apply one message
 * @param manualTicks       true: no timer thread of the master's own; timeouts and the end of the
 *                          recovery window are checked only when the caller calls
 *                          {@link ProtocolMaster#tick()} (deterministic tests and the conformance kit)
 * @param lease             whether the master may act as the leader now: checked before it takes a
 *                          message, grants or sends a cap or hint (docs/ha.md, "The lease");
 *                          {@link LeaderLease#ALWAYS} for a single master
 */
public record MasterOptions(String name, long incarnation, Duration agentTimeout, Duration jobMasterTimeout,
                            int maxPlacements, Duration engineTimeout, boolean manualTicks, LeaderLease lease) {

    public MasterOptions(String name, long incarnation, Duration agentTimeout, Duration jobMasterTimeout,
                         int maxPlacements, Duration engineTimeout) {
        this(name, incarnation, agentTimeout, jobMasterTimeout, maxPlacements, engineTimeout, false);
    }

    public MasterOptions(String name, long incarnation, Duration agentTimeout, Duration jobMasterTimeout,
                         int maxPlacements, Duration engineTimeout, boolean manualTicks) {
        this(name, incarnation, agentTimeout, jobMasterTimeout, maxPlacements, engineTimeout, manualTicks, LeaderLease.ALWAYS);
    }

    public MasterOptions {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(lease, "lease");
        if (maxPlacements < 1) {
            throw new IllegalArgumentException("maxPlacements must be at least 1, got " + maxPlacements);
        }
    }

    /** Name {@code master}, this instant as incarnation, 30 s agent and 60 s job master timeouts. */
    public static MasterOptions defaults() {
        return new MasterOptions("master", System.currentTimeMillis(), Duration.ofSeconds(30), Duration.ofSeconds(60),
                2_000, Duration.ofSeconds(30));
    }

    public MasterOptions withTimeouts(Duration agents, Duration jobMasters) {
        return new MasterOptions(name, incarnation, agents, jobMasters, maxPlacements, engineTimeout, manualTicks, lease);
    }

    public MasterOptions withIncarnation(long value) {
        return new MasterOptions(name, value, agentTimeout, jobMasterTimeout, maxPlacements, engineTimeout, manualTicks, lease);
    }

    /** The same options with timeouts checked only by {@link ProtocolMaster#tick()}. */
    public MasterOptions withManualTicks() {
        return new MasterOptions(name, incarnation, agentTimeout, jobMasterTimeout, maxPlacements, engineTimeout, true, lease);
    }

    /** The same options for a master under high availability: it acts only while {@code value} is held. */
    public MasterOptions withLease(LeaderLease value) {
        return new MasterOptions(name, incarnation, agentTimeout, jobMasterTimeout, maxPlacements, engineTimeout, manualTicks, value);
    }
}
