package granary.planner.whatif;

import java.util.Objects;

/**
 * How the replayed trace's jobs land in the quota tables' groups. The tables only act on jobs of the
 * groups they fund (the quota policy refuses a job of any other group), so this must match what the
 * tables name.
 *
 * @param rule for {@link Kind#TRACE_RULE}: the trace's {@code group} option as the simulator takes it
 *             ({@code const:NAME}, {@code hash:N}, or a column such as {@code user}); otherwise null
 */
public record GroupAssignment(Kind kind, String rule) {

    public enum Kind {
        /**
         * Jobs hashed by id over the groups of the two tables (their union): a trace without groups
         * (Alibaba 2017) spread over whatever the tables fund.
         */
        HASH_INTO_TABLE_GROUPS,
        /** The trace's own groups (the JSON format's {@code group}; {@code default} for the others). */
        AS_IN_TRACE,
        /** The simulator's group rule, given as text. */
        TRACE_RULE
    }

    public GroupAssignment {
        Objects.requireNonNull(kind, "kind");
        if (kind == Kind.TRACE_RULE && (rule == null || rule.isBlank())) {
            throw new IllegalArgumentException("a group rule needs its text, e.g. hash:4, const:batch or user");
        }
        rule = kind == Kind.TRACE_RULE ? rule.trim() : null;
    }

    public static GroupAssignment hashIntoTableGroups() {
        return new GroupAssignment(Kind.HASH_INTO_TABLE_GROUPS, null);
    }

    public static GroupAssignment asInTrace() {
        return new GroupAssignment(Kind.AS_IN_TRACE, null);
    }

    public static GroupAssignment rule(String rule) {
        return new GroupAssignment(Kind.TRACE_RULE, rule);
    }

    /** As a person reads it in a choice. */
    @Override
    public String toString() {
        return switch (kind) {
            case HASH_INTO_TABLE_GROUPS -> "hash jobs into the tables' groups";
            case AS_IN_TRACE -> "groups as in the trace";
            case TRACE_RULE -> "group rule " + rule;
        };
    }
}
