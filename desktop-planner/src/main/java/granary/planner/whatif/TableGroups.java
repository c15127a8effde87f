package granary.planner.whatif;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import granary.policy.quota.api.QuotaTable;

/**
 * The names the replay gives the tables' groups. The simulator's {@code hash:N} puts jobs in groups
 * {@code g0 .. g<N-1>}, so for {@link GroupAssignment.Kind#HASH_INTO_TABLE_GROUPS} the tables'
 * groups (of both tables, so that a job lands in the same group on both sides) are renamed to those
 * for the replay, and the results are named back. Tables already named {@code g0 .. g<N-1>} keep
 * their names, so that a job is in the same group as in a command-line replay with {@code hash:N};
 * otherwise the names are taken in sorted order.
 */
final class TableGroups {

    private final Map<String, String> toReplay = new HashMap<>();
    private final Map<String, String> toTable = new HashMap<>();
    private final List<String> order;

    private TableGroups(List<String> order) {
        this.order = List.copyOf(order);
    }

    static TableGroups of(QuotaTable draft, QuotaTable inForce, GroupAssignment assignment) {
        TreeSet<String> names = new TreeSet<>(draft.groupNames());
        names.addAll(inForce.groupNames());
        List<String> ordered = new ArrayList<>(names);
        boolean alreadyHashNames = true;
        for (int i = 0; i < ordered.size(); i++) {
            alreadyHashNames &= names.contains("g" + i);
        }
        if (alreadyHashNames) {
            ordered.sort((a, b) -> Integer.compare(Integer.parseInt(a.substring(1)), Integer.parseInt(b.substring(1))));
        }
        TableGroups g = new TableGroups(ordered);
        if (assignment.kind() == GroupAssignment.Kind.HASH_INTO_TABLE_GROUPS) {
            for (int i = 0; i < ordered.size(); i++) {
                g.toReplay.put(ordered.get(i), "g" + i);
                g.toTable.put("g" + i, ordered.get(i));
            }
        }
        return g;
    }

    /** The trace option {@code group} for the assignment, or null for the trace's own groups. */
    static String traceOption(GroupAssignment assignment, int groups) {
        return switch (assignment.kind()) {
            case HASH_INTO_TABLE_GROUPS -> "hash:" + Math.max(1, groups);
            case AS_IN_TRACE -> null;
            case TRACE_RULE -> assignment.rule();
        };
    }

    int size() {
        return order.size();
    }

    /** The groups of both tables, in the order hashing numbers them. */
    List<String> names() {
        return order;
    }

    /** The table as the replay names its groups. */
    QuotaTable forReplay(QuotaTable t) {
        return toReplay.isEmpty() ? t : t.renamed(n -> toReplay.getOrDefault(n, n));
    }

    /** A group of the replay by the tables' name. */
    String tableName(String replayName) {
        return toTable.getOrDefault(replayName, replayName);
    }
}
