package granary.agent;

import granary.api.model.UnitId;
import granary.protocol.Cap;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The caps this agent holds: per unit, which job master may run how many workers of it here, and
 * the key of that job master's token. Counts are absolute (a cap says the total, not a change); a
 * unit with 0 slots is not kept. Not thread-safe: {@link Node} guards it.
 */
final class CapTable {

    private final Map<UnitId, Cap.Grant> grants = new TreeMap<>();

    /** Replaces the whole table with {@code all} (a checkpoint, or the first cap after a registration). */
    void replace(List<Cap.Grant> all) {
        grants.clear();
        all.forEach(this::put);
    }

    /**
     * Applies a cap: {@code full} replaces the table (the first cap after a registration), otherwise
     * only the units named change. Returns the units whose caps were withdrawn.
     */
    Set<UnitId> apply(Cap cap, boolean full) {
        if (full) {
            grants.clear();
        }
        cap.grants().forEach(this::put);
        Set<UnitId> withdrawn = new TreeSet<>();
        for (Cap.Grant g : cap.withdrawals()) {
            put(g);
            withdrawn.add(g.unit());
        }
        return withdrawn;
    }

    void put(Cap.Grant g) {
        if (g.slots() <= 0) {
            grants.remove(g.unit());
        } else {
            grants.put(g.unit(), g);
        }
    }

    /** The grant for {@code unit}, or null if it has no slots here. */
    Cap.Grant get(UnitId unit) {
        return grants.get(unit);
    }

    int slots(UnitId unit) {
        Cap.Grant g = grants.get(unit);
        return g == null ? 0 : g.slots();
    }

    /** True if {@code jobMaster} holds a cap for any unit here. */
    boolean holdsAny(String jobMaster) {
        for (Cap.Grant g : grants.values()) {
            if (g.jobMaster().equals(jobMaster)) {
                return true;
            }
        }
        return false;
    }

    /** True if one of {@code jobMaster}'s caps carries {@code key}; compared in constant time. */
    boolean keyMatches(String jobMaster, String key) {
        boolean match = false;
        for (Cap.Grant g : grants.values()) {
            if (g.jobMaster().equals(jobMaster) && sameKey(g.key(), key)) {
                match = true;
            }
        }
        return match;
    }

    static boolean sameKey(String a, String b) {
        return MessageDigest.isEqual(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
    }

    List<Cap.Grant> all() {
        return new ArrayList<>(grants.values());
    }

    int size() {
        return grants.size();
    }
}
