package granary.policy.queues.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import granary.api.model.InvalidRequestException;
import granary.api.model.Names;
import granary.api.model.Problem;
import granary.api.model.Resources;
import granary.api.model.Text;

/**
 * The queue tree of docs/multi-tenancy.md, "Queues by full path" under {@code root}. A queue's identity is its full path
 * ({@code root.a.p0}); leaf names may repeat under different parents. Jobs go to leaves only.
 *
 * <p>Resolution of a name a job gives: a full path ({@code root.a.p0}, or {@code a.p0} relative to
 * root) must name a leaf; a short name ({@code p0}) is accepted only if exactly one leaf has it, and
 * an ambiguous one is refused with the candidate paths; an unknown name goes to the fallback queue if
 * one is configured, and is refused otherwise.
 */
public final class QueueTree {

    public static final String ROOT = "root";

    private final Map<String, QueueSpec> byPath;
    private final Map<String, String> parentOf;
    private final Map<String, List<String>> leavesByName;
    private final String fallback;
    private final boolean drf;

    private QueueTree(Map<String, QueueSpec> byPath, Map<String, String> parentOf,
                      Map<String, List<String>> leavesByName, String fallback, boolean drf) {
        this.byPath = byPath;
        this.parentOf = parentOf;
        this.leavesByName = leavesByName;
        this.fallback = fallback;
        this.drf = drf;
    }

    /**
     * Builds and validates a tree.
     *
     * @param queues   the queues under root
     * @param fallback full path of the leaf that takes jobs naming an unknown queue, or null
     * @param drf      order siblings by dominant resource share (DRF) instead of the used share of
     *                 their guaranteed capacity
     * @throws InvalidRequestException listing every problem, each naming the queue's path
     */
    public static QueueTree of(List<QueueSpec> queues, String fallback, boolean drf) {
        List<Problem> problems = new ArrayList<>();
        Map<String, QueueSpec> byPath = new LinkedHashMap<>();
        Map<String, String> parentOf = new LinkedHashMap<>();
        QueueSpec root = new QueueSpec(ROOT, Capacity.ALL, Capacity.ALL, 0, 0, queues);
        if (queues == null || queues.isEmpty()) {
            problems.add(Problem.of("queue root", "queues", "the tree has no queues under root"));
        }
        walk(root, ROOT, null, byPath, parentOf, problems);
        Map<String, List<String>> leaves = new TreeMap<>();
        byPath.forEach((path, q) -> {
            if (q.isLeaf() && !path.equals(ROOT)) {
                leaves.computeIfAbsent(q.name(), k -> new ArrayList<>()).add(path);
            }
        });
        if (fallback != null && !(byPath.containsKey(fallback) && byPath.get(fallback).isLeaf() && !fallback.equals(ROOT))) {
            problems.add(Problem.of("queue tree", "fallback", "'" + Text.escape(fallback) + "' is not a leaf queue; leaves: "
                    + leafPaths(byPath)));
        }
        if (!problems.isEmpty()) {
            throw new InvalidRequestException(problems);
        }
        return new QueueTree(Collections.unmodifiableMap(byPath), parentOf, leaves, fallback, drf);
    }

    private static void walk(QueueSpec q, String path, String parent, Map<String, QueueSpec> byPath,
                             Map<String, String> parentOf, List<Problem> problems) {
        String subject = "queue " + path;
        if (!Names.isValid(q.name()) || q.name().contains(".")) {
            problems.add(Problem.of(subject, "name", "'" + Text.escape(q.name()) + "' is not a queue name: " + Names.RULE + ", and no '.'"));
        }
        if (byPath.put(path, q) != null) {
            problems.add(Problem.of("queue " + parent, "queues", "child '" + Text.escape(q.name()) + "' is defined twice"));
        }
        parentOf.put(path, parent);
        if (q.maxRunningJobs() < 0) {
            problems.add(Problem.of(subject, "maxRunningJobs", "must not be negative, got " + q.maxRunningJobs(), 0, q.maxRunningJobs()));
        }
        if (q.maxRunningJobsPerUser() < 0) {
            problems.add(Problem.of(subject, "maxRunningJobsPerUser", "must not be negative, got " + q.maxRunningJobsPerUser(),
                    0, q.maxRunningJobsPerUser()));
        }
        if (q.maxRunningJobs() > 0 && q.maxRunningJobsPerUser() > q.maxRunningJobs()) {
            problems.add(Problem.of(subject, "maxRunningJobsPerUser", "maxRunningJobsPerUser " + q.maxRunningJobsPerUser()
                    + " > maxRunningJobs " + q.maxRunningJobs(), q.maxRunningJobs(), q.maxRunningJobsPerUser()));
        }
        Capacity c = q.capacity();
        Capacity m = q.maxCapacity();
        if (c.isFraction() == m.isFraction() && !(c.isFraction() ? c.fraction() <= m.fraction() : c.absolute().fitsIn(m.absolute()))) {
            problems.add(Problem.of(subject, "capacity", "capacity " + c + " > maxCapacity " + m));
        }
        checkChildren(q, path, problems);
        for (QueueSpec child : q.children()) {
            walk(child, path + "." + child.name(), path, byPath, parentOf, problems);
        }
    }

    private static void checkChildren(QueueSpec q, String path, List<Problem> problems) {
        double fractions = 0;
        Resources absolute = Resources.ZERO;
        for (QueueSpec child : q.children()) {
            if (child.capacity().isFraction()) {
                fractions += child.capacity().fraction();
            } else {
                try {
                    absolute = absolute.plus(child.capacity().absolute());
                } catch (ArithmeticException tooLarge) {
                    // a wrapped sum would be negative and fit any capacity: refuse it instead
                    problems.add(Problem.of("queue " + path, "capacity", "the children's capacities sum to more than "
                            + Long.MAX_VALUE + ", the largest amount (at child " + child.name() + ": " + absolute + " + "
                            + child.capacity().absolute() + ")"));
                    return;
                }
            }
        }
        if (fractions > 1.0 + 1e-9) {
            problems.add(Problem.of("queue " + path, "capacity", "the children's capacities sum to "
                    + String.format(Locale.ROOT, "%.4g%%", fractions * 100) + " of it, more than 100%"));
        }
        if (!q.capacity().isFraction() && !absolute.fitsIn(q.capacity().absolute())) {
            problems.add(Problem.of("queue " + path, "capacity", "the children's capacities sum to " + absolute
                    + ", more than its capacity " + q.capacity().absolute()));
        }
    }

    private static List<String> leafPaths(Map<String, QueueSpec> byPath) {
        List<String> l = new ArrayList<>();
        byPath.forEach((p, q) -> {
            if (q.isLeaf() && !p.equals(ROOT)) {
                l.add(p);
            }
        });
        return l;
    }

    /**
     * The full path of the leaf a job naming {@code name} goes to.
     *
     * @throws InvalidRequestException if the name is ambiguous, names an inner queue, or is unknown
     *                                 without a fallback
     */
    public String resolve(String name) {
        String subject = "queue '" + Text.escape(name) + "'";
        if (name == null || name.isEmpty()) {
            return orFallback(subject, "no queue named");
        }
        String path = name.equals(ROOT) || name.startsWith(ROOT + ".") ? name : name.contains(".") ? ROOT + "." + name : null;
        if (path != null) {
            QueueSpec q = byPath.get(path);
            if (q == null) {
                return orFallback(subject, "no queue " + path);
            }
            if (!q.isLeaf() || path.equals(ROOT)) {
                throw new InvalidRequestException(subject, "group", "queue " + path + " is not a leaf; jobs go to its leaves: "
                        + leavesUnder(path));
            }
            return path;
        }
        List<String> candidates = leavesByName.getOrDefault(name, List.of());
        if (candidates.size() == 1) {
            return candidates.get(0);
        }
        if (candidates.size() > 1) {
            throw new InvalidRequestException(subject, "group", "queue name '" + Text.escape(name) + "' is ambiguous: "
                    + String.join(", ", candidates) + "; use the full path");
        }
        List<String> inner = new ArrayList<>();
        byPath.forEach((p, q) -> {
            if (q.name().equals(name) && !q.isLeaf()) {
                inner.add(p);
            }
        });
        if (!inner.isEmpty()) {
            throw new InvalidRequestException(subject, "group", "queue " + inner.get(0) + " is not a leaf; jobs go to its leaves: "
                    + leavesUnder(inner.get(0)));
        }
        return orFallback(subject, "unknown queue '" + Text.escape(name) + "'");
    }

    private String orFallback(String subject, String what) {
        if (fallback != null) {
            return fallback;
        }
        throw new InvalidRequestException(subject, "group", what + " and no fallback queue is configured; leaves: "
                + String.join(", ", leafPaths(byPath)));
    }

    private List<String> leavesUnder(String path) {
        List<String> l = new ArrayList<>();
        for (String p : leafPaths(byPath)) {
            if (p.startsWith(path + ".")) {
                l.add(p);
            }
        }
        return l;
    }

    /** Every queue's full path, root first, parents before children, in file order. */
    public List<String> paths() {
        return List.copyOf(byPath.keySet());
    }

    /** Full paths of the leaves. */
    public List<String> leaves() {
        return leafPaths(byPath);
    }

    /** The queue at a full path, or null. */
    public QueueSpec queue(String path) {
        return byPath.get(path);
    }

    /** The parent's full path; null for root. */
    public String parent(String path) {
        return parentOf.get(path);
    }

    /** Full paths of a queue's children. */
    public List<String> children(String path) {
        QueueSpec q = byPath.get(path);
        List<String> l = new ArrayList<>();
        if (q != null) {
            for (QueueSpec c : q.children()) {
                l.add(path + "." + c.name());
            }
        }
        return l;
    }

    /** The guaranteed capacity of a queue in resources, for a cluster of {@code cluster} capacity. */
    public Resources guaranteed(String path, Resources cluster) {
        String parent = parentOf.get(path);
        return parent == null ? cluster : byPath.get(path).capacity().resolve(guaranteed(parent, cluster));
    }

    /**
     * The most a queue may hold, capped by every ancestor's maximum. A resource an absolute
     * {@code maxCapacity} leaves out (zero) is not limited by it: {@code {"cpu": 4000, "mem": 16384}}
     * caps cpu and memory and leaves gpu to the parent's maximum.
     */
    public Resources maximum(String path, Resources cluster) {
        String parent = parentOf.get(path);
        if (parent == null) {
            return cluster;
        }
        Resources parentMax = maximum(parent, cluster);
        Capacity max = byPath.get(path).maxCapacity();
        Resources own = max.resolve(parentMax);
        if (!max.isFraction()) {
            own = unsetFrom(own, parentMax);
        }
        return own.min(parentMax);
    }

    /** {@code r} with every resource it has at zero taken from {@code fallback}. */
    private static Resources unsetFrom(Resources r, Resources fallback) {
        Resources out = Resources.of(r.cpu() == 0 ? fallback.cpu() : r.cpu(), r.memMb() == 0 ? fallback.memMb() : r.memMb(),
                r.extended());
        for (int i = 0; i < fallback.extendedCount(); i++) {
            if (r.get(fallback.extendedName(i)) == 0) {
                out = out.with(fallback.extendedName(i), fallback.extendedValue(i));
            }
        }
        return out;
    }

    public String fallback() {
        return fallback;
    }

    public boolean drf() {
        return drf;
    }
}
