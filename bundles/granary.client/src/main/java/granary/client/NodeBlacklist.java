package granary.client;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The nodes a job master stops using for its own job after tasks failed there again and again
 * (docs/agent.md, "Blacklisting a node for one job"), as Spark and MapReduce blacklist a node per
 * job: {@code failures} failed tasks in a row on one node blacklist it for {@code expiry}; a task
 * that succeeds there ends the run. After the expiry the node is tried again, from zero. The
 * cluster-wide judgement of a node is its agent's health; this is one job's own.
 *
 * <p>Plain logic, no clock of its own (the caller says when) and no locks: confined to the
 * job master's loop, as the client's listener calls are.
 */
public final class NodeBlacklist {

    private final int failures;
    private final long expiryMillis;
    private final Map<String, Integer> inRow = new HashMap<>();
    private final Map<String, Long> until = new HashMap<>();

    /**
     * @param failures failed tasks in a row on one node that blacklist it; 0: never
     * @param expiry   how long a node stays blacklisted
     */
    public NodeBlacklist(int failures, Duration expiry) {
        if (failures < 0 || expiry.isNegative() || expiry.isZero()) {
            throw new IllegalArgumentException("a blacklist needs failures >= 0 and a positive expiry, got " + failures
                    + " and " + expiry);
        }
        this.failures = failures;
        this.expiryMillis = expiry.toMillis();
    }

    /**
     * A task of the job ended on {@code node} at {@code now} (ms): {@code failed} or not.
     *
     * @return true if this end blacklisted the node
     */
    public boolean ended(String node, boolean failed, long now) {
        if (!failed) {
            inRow.remove(node);
            return false;
        }
        if (failures == 0 || blacklisted(node, now)) {
            return false;
        }
        int n = inRow.merge(node, 1, Integer::sum);
        if (n < failures) {
            return false;
        }
        inRow.remove(node);
        until.put(node, now + expiryMillis);
        return true;
    }

    /** Whether the job keeps off {@code node} at {@code now}. */
    public boolean blacklisted(String node, long now) {
        Long u = until.get(node);
        if (u == null) {
            return false;
        }
        if (now >= u) {
            until.remove(node); // expired: tried again, from zero
            return false;
        }
        return true;
    }

    /** The nodes blacklisted at {@code now}, sorted. */
    public Set<String> nodes(long now) {
        Set<String> out = new TreeSet<>();
        for (String n : Set.copyOf(until.keySet())) {
            if (blacklisted(n, now)) {
                out.add(n);
            }
        }
        return out;
    }
}
