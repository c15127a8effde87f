package granary.policy.quota.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

import granary.api.model.InvalidRequestException;
import granary.api.model.Names;
import granary.api.model.Problem;
import granary.api.model.Text;

/**
 * The time-sliced quota table of docs/multi-tenancy.md, "The quota table": per time slice, per group, {@code GroupId},
 * {@code MinQuota} and {@code MaxQuota}, with an optional {@link WorkerSpans}. A table only exists
 * valid: {@link #of} checks everything and reports every problem, naming the slice, the group and
 * the numbers.
 */
public final class QuotaTable {

    private final Map<TimeSlice, Map<String, GroupQuota>> slices;
    private final WorkerSpans workerSpans;
    private final boolean workerForm;

    private QuotaTable(Map<TimeSlice, Map<String, GroupQuota>> slices, WorkerSpans workerSpans, boolean workerForm) {
        this.slices = slices;
        this.workerSpans = workerSpans;
        this.workerForm = workerForm;
    }

    /**
     * Builds and validates a table.
     *
     * @param raw         slice key ({@code default}, {@code 0-9}) → group name → its quota, in file order
     * @param workerSpans optional (null): worker counts per slice, checked against ΣMin and ΣMax
     * @throws InvalidRequestException listing every problem
     */
    public static QuotaTable of(Map<String, Map<String, GroupQuota>> raw, WorkerSpans workerSpans) {
        List<Problem> problems = new ArrayList<>();
        Map<TimeSlice, Map<String, GroupQuota>> slices = new LinkedHashMap<>();
        Map<TimeSlice, String> keyOf = new HashMap<>();
        for (Map.Entry<String, Map<String, GroupQuota>> e : raw.entrySet()) {
            try {
                TimeSlice slice = TimeSlice.parse(e.getKey());
                String first = keyOf.putIfAbsent(slice, e.getKey());
                if (first != null) {
                    // "0-9" and "00-9" are two keys to JSON but one slice: the second must not replace the first
                    problems.add(Problem.of("slice '" + Text.escape(e.getKey()) + "'", "key", "is slice " + slice
                            + " again (as '" + Text.escape(first) + "')"));
                    continue;
                }
                slices.put(slice, Collections.unmodifiableMap(new LinkedHashMap<>(e.getValue())));
            } catch (InvalidRequestException ex) {
                problems.addAll(ex.problems());
            }
        }
        checkCoverage(slices, problems);
        Boolean workers = checkGroups(slices, problems);
        checkGroupIds(slices, problems);
        if (workerSpans != null) {
            checkWorkerSpans(slices, workerSpans, workers, problems);
        }
        if (!problems.isEmpty()) {
            throw new InvalidRequestException(problems);
        }
        return new QuotaTable(Collections.unmodifiableMap(slices), workerSpans, workers == null || workers);
    }

    private static void checkCoverage(Map<TimeSlice, Map<String, GroupQuota>> slices, List<Problem> problems) {
        List<TimeSlice> ranges = slices.keySet().stream().filter(s -> !s.isDefault()).toList();
        int covered = 0;
        for (int i = 0; i < ranges.size(); i++) {
            for (int j = i + 1; j < ranges.size(); j++) {
                int both = ranges.get(i).hourBits() & ranges.get(j).hourBits();
                if (both != 0) {
                    problems.add(Problem.of("slices " + ranges.get(i) + " and " + ranges.get(j), "hours",
                            "overlap at hours " + hours(both)));
                }
            }
            covered |= ranges.get(i).hourBits();
        }
        int all = (1 << 24) - 1;
        if (covered != all && !slices.containsKey(TimeSlice.DEFAULT)) {
            problems.add(Problem.of("quota table", "default", "hours " + hours(all & ~covered)
                    + " are in no slice and there is no 'default' slice; add one (it may be empty: {})"));
        }
    }

    /** Checks every entry; returns whether the table counts workers (null if it has no entries). */
    private static Boolean checkGroups(Map<TimeSlice, Map<String, GroupQuota>> slices, List<Problem> problems) {
        Boolean workers = null;
        String firstForm = null;
        for (Map.Entry<TimeSlice, Map<String, GroupQuota>> s : slices.entrySet()) {
            for (Map.Entry<String, GroupQuota> g : s.getValue().entrySet()) {
                String subject = "slice " + s.getKey() + ", group " + g.getKey();
                GroupQuota q = g.getValue();
                if (!Names.isValid(g.getKey())) {
                    problems.add(Problem.of(subject, "name", "'" + Text.escape(g.getKey()) + "' is not a valid group name: " + Names.RULE));
                }
                if (q.groupId() < 0) {
                    problems.add(Problem.of(subject, "GroupId", "must not be negative, got " + q.groupId(), 0, q.groupId()));
                }
                if (q.min() == null || q.max() == null) {
                    problems.add(Problem.of(subject, q.min() == null ? "MinQuota" : "MaxQuota", "is missing"));
                    continue;
                }
                boolean ok = true;
                for (Object[] f : new Object[][] {{"MinQuota", q.min()}, {"MaxQuota", q.max()}}) {
                    Quota v = (Quota) f[1];
                    if (v.isNegative()) {
                        problems.add(Problem.of(subject, (String) f[0], "must not be negative, got " + v));
                        ok = false;
                    }
                    if (workers == null) {
                        workers = v.isWorkers();
                        firstForm = subject + " " + f[0];
                    } else if (workers != v.isWorkers()) {
                        problems.add(Problem.of(subject, (String) f[0], "is " + form(v.isWorkers())
                                + " but the table counts " + form(workers) + " (as " + firstForm + " does)"));
                        ok = false;
                    }
                }
                if (ok && !q.min().atMost(q.max())) {
                    problems.add(new Problem(subject, "MinQuota", "MinQuota " + q.min() + " > MaxQuota " + q.max(),
                            q.max().isWorkers() ? q.max().workers() : null, q.min().isWorkers() ? q.min().workers() : null));
                }
            }
        }
        return workers;
    }

    private static String form(boolean workers) {
        return workers ? "a worker count" : "a resource vector";
    }

    private static void checkGroupIds(Map<TimeSlice, Map<String, GroupQuota>> slices, List<Problem> problems) {
        Map<String, Map.Entry<TimeSlice, Integer>> idOfGroup = new TreeMap<>();
        Map<Integer, String> groupOfId = new TreeMap<>();
        for (Map.Entry<TimeSlice, Map<String, GroupQuota>> s : slices.entrySet()) {
            for (Map.Entry<String, GroupQuota> g : s.getValue().entrySet()) {
                int id = g.getValue().groupId();
                Map.Entry<TimeSlice, Integer> seen = idOfGroup.putIfAbsent(g.getKey(), Map.entry(s.getKey(), id));
                if (seen != null && seen.getValue() != id) {
                    problems.add(Problem.of("group " + g.getKey(), "GroupId", "is " + seen.getValue() + " in slice "
                            + seen.getKey() + " but " + id + " in slice " + s.getKey()));
                }
                String other = groupOfId.putIfAbsent(id, g.getKey());
                if (other != null && !other.equals(g.getKey())) {
                    problems.add(Problem.of("slice " + s.getKey() + ", group " + g.getKey(), "GroupId",
                            "GroupId " + id + " is already the id of group " + other));
                }
            }
        }
    }

    private static void checkWorkerSpans(Map<TimeSlice, Map<String, GroupQuota>> slices, WorkerSpans spans,
                                         Boolean workers, List<Problem> problems) {
        if (workers != null && !workers) {
            problems.add(Problem.of("WorkerSpans " + Text.escape(spans.toString()), "form", "counts workers, but the quota table is in resources"));
            return;
        }
        for (TimeSlice s : spans.entries().keySet()) {
            if (!slices.containsKey(s)) {
                problems.add(Problem.of("WorkerSpans " + Text.escape(spans.toString()), "slice " + s, "is not a slice of the quota table (slices: "
                        + slices.keySet() + ")"));
            }
        }
        for (Map.Entry<TimeSlice, Map<String, GroupQuota>> s : slices.entrySet()) {
            Long ws = spans.at(s.getKey());
            String subject = "slice " + s.getKey();
            if (ws == null) {
                problems.add(Problem.of(subject, "WorkerSpans", "has no WorkerSpans entry and WorkerSpans has no default"));
                continue;
            }
            // sums that would wrap: too large a MinQuota sum is refused; a MaxQuota sum stops at the
            // largest long, which is more than any WorkerSpans anyway
            long sumMin = 0;
            long sumMax = 0;
            boolean minOverflows = false;
            for (GroupQuota q : s.getValue().values()) {
                if (q.min() != null && q.max() != null && q.min().isWorkers() && q.max().isWorkers()) {
                    try {
                        sumMin = Math.addExact(sumMin, q.min().workers());
                    } catch (ArithmeticException e) {
                        minOverflows = true;
                    }
                    sumMax = saturatedAdd(sumMax, q.max().workers());
                }
            }
            if (minOverflows) {
                problems.add(Problem.of(subject, "MinQuota", "sum of MinQuota is more than " + Long.MAX_VALUE
                        + ", the largest amount, > WorkerSpans " + ws, ws, Long.MAX_VALUE));
            } else if (sumMin > ws) {
                problems.add(Problem.of(subject, "MinQuota", "sum of MinQuota " + sumMin + " > WorkerSpans " + ws, ws, sumMin));
            }
            if (ws > sumMax) {
                problems.add(Problem.of(subject, "MaxQuota", "WorkerSpans " + ws + " > sum of MaxQuota " + sumMax, sumMax, ws));
            }
        }
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return ((a ^ r) & (b ^ r)) < 0 ? (a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE) : r;
    }

    private static String hours(int bits) {
        List<String> ranges = new ArrayList<>();
        int h = 0;
        while (h < 24) {
            if ((bits & (1 << h)) == 0) {
                h++;
                continue;
            }
            int start = h;
            while (h < 24 && (bits & (1 << h)) != 0) {
                h++;
            }
            ranges.add(start + "-" + h);
        }
        return String.join(",", ranges);
    }

    /** Slices in file order. */
    public Set<TimeSlice> slices() {
        return slices.keySet();
    }

    /** The groups funded in a slice (empty if the slice is not in the table). */
    public Map<String, GroupQuota> groups(TimeSlice slice) {
        return slices.getOrDefault(slice, Map.of());
    }

    /** The slice in force at {@code hour}: the range covering it, else {@code default}, else null. */
    public TimeSlice sliceAt(int hour) {
        for (TimeSlice s : slices.keySet()) {
            if (s.covers(hour)) {
                return s;
            }
        }
        return slices.containsKey(TimeSlice.DEFAULT) ? TimeSlice.DEFAULT : null;
    }

    /** Every group named in any slice, sorted. */
    public Set<String> groupNames() {
        Set<String> names = new TreeSet<>();
        slices.values().forEach(m -> names.addAll(m.keySet()));
        return names;
    }

    public WorkerSpans workerSpans() {
        return workerSpans;
    }

    /** True if quotas count workers (slots); false if they are resource vectors. */
    public boolean workerForm() {
        return workerForm;
    }

    /** The same table with group names mapped (e.g. short queue names to full paths), validated again. */
    public QuotaTable renamed(UnaryOperator<String> rename) {
        Map<String, Map<String, GroupQuota>> raw = new LinkedHashMap<>();
        for (Map.Entry<TimeSlice, Map<String, GroupQuota>> s : slices.entrySet()) {
            Map<String, GroupQuota> m = new LinkedHashMap<>();
            for (GroupQuota q : s.getValue().values()) {
                String n = rename.apply(q.group());
                if (m.put(n, new GroupQuota(n, q.groupId(), q.min(), q.max())) != null) {
                    throw new InvalidRequestException("slice " + s.getKey(), "group " + q.group(),
                            "names the same group " + n + " as another entry of the slice");
                }
            }
            raw.put(s.getKey().toString(), m);
        }
        return of(raw, workerSpans);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof QuotaTable t && t.slices.equals(slices) && java.util.Objects.equals(t.workerSpans, workerSpans);
    }

    @Override
    public int hashCode() {
        return slices.hashCode();
    }

    @Override
    public String toString() {
        return "QuotaTable" + slices + (workerSpans == null ? "" : " WorkerSpans " + workerSpans);
    }
}
