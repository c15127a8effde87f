package granary.http;

import java.util.Arrays;

/**
 * What a token of the HTTP API may do, each role including the ones before it (docs/api.md,
 * "Authentication and roles"). A token proves an identity {@code role/name} under the master's
 * secret, issued with {@code --issue-token=operator/alice}.
 */
public enum ApiRole {
    /** Reads everything: status, nodes, jobs, queues, policies and what they declare, peers, the stream. */
    READER("reader"),
    /** And changes work: submits, cancels and moves jobs, blacklists nodes. */
    OPERATOR("operator"),
    /** And changes the scheduler: the settings policies declare (their write resources), policies; reads the audit log. */
    ADMIN("admin");

    private final String wire;

    ApiRole(String wire) {
        this.wire = wire;
    }

    /** The identity prefix, {@code reader}, {@code operator} or {@code admin}. */
    public String wire() {
        return wire;
    }

    /** Whether a token of this role may do what {@code needed} may. */
    public boolean covers(ApiRole needed) {
        return ordinal() >= needed.ordinal();
    }

    /** The role of an identity prefix, or null. */
    public static ApiRole ofWire(String prefix) {
        return Arrays.stream(values()).filter(r -> r.wire.equals(prefix)).findFirst().orElse(null);
    }
}
