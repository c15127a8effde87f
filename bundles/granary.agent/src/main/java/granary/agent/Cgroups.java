package granary.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The node's control groups, where workers are held to their slots (docs/agent.md, "Isolation"):
 * cgroup v2 where its unified hierarchy carries the {@code cpu} and {@code memory} controllers,
 * else the v1 hierarchies of {@code cpu}, {@code cpuacct} and {@code memory}. Every worker gets a
 * group of its own inside the agent's parent group, {@code granary-<node>-<tag>}, which lies inside
 * the agent's own cgroup of each hierarchy (so that whatever limits the agent is under hold its
 * workers too). The tag tells apart agents of one node name with other work dirs (tests).
 *
 * <p>Plain file access to {@code /sys/fs/cgroup}; nothing here keeps state but paths. Used on the
 * agent's loop and, for the end of a worker, on the thread that saw it end (the group is then
 * that worker's alone).
 */
final class Cgroups {

    /** The CFS period written with a quota, in microseconds (the kernel's default). */
    static final long PERIOD_US = 100_000;

    private final boolean v2;
    /** The parent group per hierarchy: v2 one; v1 cpu, cpuacct, memory (two may be the same directory). */
    private final Map<String, Path> parents;

    private Cgroups(boolean v2, Map<String, Path> parents) {
        this.v2 = v2;
        this.parents = parents;
    }

    /** The kind, as said at start. */
    String kind() {
        return v2 ? "cgroup v2" : "cgroup v1";
    }

    /** The parent groups, for the operator. */
    List<Path> parents() {
        return List.copyOf(new LinkedHashSet<>(parents.values()));
    }

    /**
     * The agent's parent group, created if needed, with the controllers a worker needs.
     *
     * @throws IOException saying in words why not: no cgroup file system, a controller missing, not
     *                     writable (the agent is not root, or its container is not allowed)
     */
    static Cgroups open(String parentName) throws IOException {
        return open(Path.of("/proc/self/mountinfo"), Path.of("/proc/self/cgroup"), parentName);
    }

    static Cgroups open(Path mountinfo, Path selfCgroup, String parentName) throws IOException {
        if (!Files.isReadable(mountinfo) || !Files.isReadable(selfCgroup)) {
            throw new IOException("this system has no /proc/self/mountinfo or /proc/self/cgroup (not Linux?)");
        }
        List<String> mounts = Files.readAllLines(mountinfo, StandardCharsets.UTF_8);
        Map<String, String> own = new LinkedHashMap<>(); // controller ("" for v2) -> the agent's path in it
        for (String line : Files.readAllLines(selfCgroup, StandardCharsets.UTF_8)) {
            String[] f = line.split(":", 3);
            if (f.length == 3) {
                for (String c : f[1].split(",")) {
                    own.put(c, f[2]);
                }
            }
        }
        // v2: the unified mount with cpu and memory among its controllers
        for (String line : mounts) {
            Mount m = Mount.parse(line);
            if (m != null && m.type.equals("cgroup2")) {
                String controllers = read(m.point.resolve("cgroup.controllers")).orElse("");
                if (List.of(controllers.split("\\s+")).containsAll(List.of("cpu", "memory"))) {
                    Path agent = m.inside(own.getOrDefault("", "/"));
                    handDown(agent);
                    Path parent = agent.resolve(parentName);
                    create(parent);
                    // the parent has no processes of its own, so it may hand its controllers down
                    write(parent.resolve("cgroup.subtree_control"), "+cpu +memory");
                    return new Cgroups(true, Map.of("", parent));
                }
            }
        }
        Map<String, Path> parents = new LinkedHashMap<>();
        for (String controller : List.of("cpu", "cpuacct", "memory")) {
            Mount found = null;
            for (String line : mounts) {
                Mount m = Mount.parse(line);
                if (m != null && m.type.equals("cgroup") && m.options.contains(controller)) {
                    found = m;
                    break;
                }
            }
            if (found == null) {
                throw new IOException("no cgroup v2 with the cpu and memory controllers is mounted, and no cgroup v1 hierarchy"
                        + " of the " + controller + " controller either");
            }
            Path parent = found.inside(own.getOrDefault(controller, "/")).resolve(parentName);
            create(parent);
            parents.put(controller, parent);
        }
        return new Cgroups(false, parents);
    }

    /**
     * Removes the empty parent groups other agents of this kind left (killed before they could):
     * the kernel refuses to remove one that still holds a worker's group, so only empty ones go.
     * A live agent whose parent went makes it again with its next worker.
     */
    private static void sweep(Path where, String parentName) {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(where, "granary-*")) {
            for (Path p : ds) {
                if (!p.getFileName().toString().equals(parentName) && Files.isDirectory(p) && below(p).isEmpty()) {
                    try {
                        Files.deleteIfExists(p);
                    } catch (IOException ex) {
                        // in use: left alone
                    }
                }
            }
        } catch (IOException | RuntimeException ex) {
            // nothing to sweep
        }
    }

    /**
     * Makes the agent's own v2 cgroup hand {@code cpu} and {@code memory} down to its children. A v2
     * cgroup that holds processes may not (no internal processes, the root excepted), so the agent
     * first moves itself into a leaf of its cgroup, {@code agent}, as a service given its cgroup to
     * manage is expected to (systemd's {@code Delegate=yes}).
     */
    private static void handDown(Path agent) throws IOException {
        Path control = agent.resolve("cgroup.subtree_control");
        if (List.of(read(control).orElse("").trim().split("\\s+")).containsAll(List.of("cpu", "memory"))) {
            return;
        }
        try {
            write(control, "+cpu +memory");
            return;
        } catch (IOException busy) {
            // processes in the agent's cgroup: moved to a leaf first
        }
        Path leaf = agent.resolve("agent");
        try {
            Files.createDirectories(leaf);
            for (String pid : read(agent.resolve("cgroup.procs")).orElse("").split("\n")) {
                if (!pid.isBlank()) {
                    write(leaf.resolve("cgroup.procs"), pid.trim());
                }
            }
        } catch (IOException ex) {
            throw new IOException("the agent's cgroup " + agent + " cannot hand cpu and memory down to its workers (" + ex.getMessage()
                    + "); give the agent a cgroup of its own to manage (systemd: Delegate=yes)", ex);
        }
        write(control, "+cpu +memory");
    }

    private static void create(Path dir) throws IOException {
        sweep(dir.getParent(), dir.getFileName().toString());
        try {
            Files.createDirectories(dir);
        } catch (IOException ex) {
            throw new IOException("cannot create the cgroup " + dir + " (" + ex.getMessage() + "): the agent needs to"
                    + " run as root, or be given a cgroup it may write", ex);
        }
        if (!Files.isWritable(dir.resolve("cgroup.procs"))) {
            throw new IOException("the cgroup " + dir + " is not writable by the agent");
        }
    }

    /**
     * A new group for one worker, {@code name} in every hierarchy; with {@code cpuHundredths} and
     * {@code memMiB} as its limits when above 0 and {@code enforce}.
     */
    Group create(String name, long cpuHundredths, long memMiB, boolean enforce) throws IOException {
        List<Path> dirs = new ArrayList<>();
        for (Path parent : parents()) {
            if (!Files.isDirectory(parent)) {
                Files.createDirectories(parent); // swept away while it had no worker
                if (v2) {
                    write(parent.resolve("cgroup.subtree_control"), "+cpu +memory");
                }
            }
            Path dir = parent.resolve(name);
            if (Files.isDirectory(dir)) {
                new Group(v2, List.of(dir)).clear(); // left by a worker of this slot before: its processes go with it
            }
            Files.createDirectories(dir);
            dirs.add(dir);
        }
        Group g = new Group(v2, dirs);
        if (enforce) {
            try {
                g.limit(cpuHundredths, memMiB);
            } catch (IOException ex) {
                g.clear();
                throw ex;
            }
        }
        return g;
    }

    /**
     * Removes the parent groups if no worker runs in them any more (the agent ends): groups of
     * workers that ended and are still being removed by the thread that saw them end are waited for,
     * up to ten seconds; a group with a process in it (a worker left running: --keep-workers-on-exit,
     * or an agent that gave up) keeps its parent, and nothing is killed here.
     */
    void close() {
        long deadline = System.nanoTime() + 10_000_000_000L;
        List<Path> left = new ArrayList<>(parents());
        while (!left.isEmpty()) {
            for (java.util.Iterator<Path> it = left.iterator(); it.hasNext(); ) {
                Path p = it.next();
                List<Path> children = below(p);
                if (children.stream().anyMatch(c -> !read(c.resolve("cgroup.procs")).orElse("").isBlank())) {
                    it.remove(); // a worker runs in it: it stays
                    continue;
                }
                try {
                    for (Path c : children) {
                        Files.deleteIfExists(c);
                    }
                    Files.deleteIfExists(p);
                    it.remove();
                } catch (IOException busy) {
                    // a worker's group on its way out: again in a moment
                }
            }
            if (left.isEmpty() || System.nanoTime() > deadline) {
                return;
            }
            try {
                Thread.sleep(10); // the kernel lets a group go once its last process is reaped: bounded above
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** One worker's group: a directory per hierarchy. */
    static final class Group {
        private final boolean v2;
        private final List<Path> dirs;

        Group(boolean v2, List<Path> dirs) {
            this.v2 = v2;
            this.dirs = List.copyOf(dirs);
        }

        /** A group named in a run record: its directories, "|"-separated; null if none of them is there any more. */
        static Group of(String recorded) {
            if (recorded == null || recorded.isEmpty()) {
                return null;
            }
            List<Path> dirs = new ArrayList<>();
            for (String d : recorded.split("\\|")) {
                if (!d.isEmpty() && Files.isDirectory(Path.of(d))) {
                    dirs.add(Path.of(d));
                }
            }
            return dirs.isEmpty() ? null : new Group(Files.exists(dirs.get(0).resolve("cgroup.controllers")), dirs);
        }

        /** As a run record keeps it. */
        String recorded() {
            return String.join("|", dirs.stream().map(Path::toString).toList());
        }

        List<Path> dirs() {
            return dirs;
        }

        /** The files a process writes its pid to, to join the group (space-separated, for the wrapper). */
        String procsFiles() {
            return String.join(" ", dirs.stream().map(d -> d.resolve("cgroup.procs").toString()).toList());
        }

        private void limit(long cpuHundredths, long memMiB) throws IOException {
            long quota = cpuHundredths * PERIOD_US / 100;
            long bytes = memMiB * 1024 * 1024;
            if (v2) {
                Path d = dirs.get(0);
                write(d.resolve("cpu.max"), cpuHundredths > 0 ? quota + " " + PERIOD_US : "max " + PERIOD_US);
                write(d.resolve("memory.max"), memMiB > 0 ? Long.toString(bytes) : "max");
                if (Files.exists(d.resolve("memory.swap.max"))) {
                    write(d.resolve("memory.swap.max"), "0"); // a slot's memory is memory, not swap
                }
                return;
            }
            for (Path d : dirs) {
                if (Files.exists(d.resolve("cpu.cfs_quota_us")) && cpuHundredths > 0) {
                    write(d.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_US));
                    write(d.resolve("cpu.cfs_quota_us"), Long.toString(quota));
                }
                if (Files.exists(d.resolve("memory.limit_in_bytes")) && memMiB > 0) {
                    write(d.resolve("memory.limit_in_bytes"), Long.toString(bytes));
                    if (Files.isWritable(d.resolve("memory.memsw.limit_in_bytes"))) {
                        try {
                            write(d.resolve("memory.memsw.limit_in_bytes"), Long.toString(bytes));
                        } catch (IOException ex) {
                            // no swap accounting: memory alone is limited
                        }
                    }
                }
            }
        }

        /** The processes in the group now. */
        Set<Long> pids() {
            Set<Long> out = new LinkedHashSet<>();
            for (Path d : dirs) {
                for (String line : read(d.resolve("cgroup.procs")).orElse("").split("\n")) {
                    if (!line.isBlank()) {
                        out.add(Long.parseLong(line.trim()));
                    }
                }
            }
            return out;
        }

        /** CPU time used by everything that ran in the group, in nanoseconds; -1 if unknown. */
        long cpuNanos() {
            if (v2) {
                return stat(dirs.get(0).resolve("cpu.stat"), "usage_usec") * 1000;
            }
            for (Path d : dirs) {
                Optional<String> ns = read(d.resolve("cpuacct.usage"));
                if (ns.isPresent()) {
                    return Long.parseLong(ns.get().trim());
                }
            }
            return -1;
        }

        /** Memory in use: what the group is charged, less file pages it could give back at once (inactive). */
        long memBytes() {
            for (Path d : dirs) {
                String current = v2 ? "memory.current" : "memory.usage_in_bytes";
                Optional<String> used = read(d.resolve(current));
                if (used.isPresent()) {
                    long inactive = stat(d.resolve("memory.stat"), v2 ? "inactive_file" : "total_inactive_file");
                    return Math.max(0, Long.parseLong(used.get().trim()) - Math.max(0, inactive));
                }
            }
            return -1;
        }

        /** The most memory the group was charged; -1 if the kernel does not keep it. */
        long peakBytes() {
            for (Path d : dirs) {
                Optional<String> peak = read(d.resolve(v2 ? "memory.peak" : "memory.max_usage_in_bytes"));
                if (peak.isPresent()) {
                    return Long.parseLong(peak.get().trim());
                }
            }
            return -1;
        }

        /** Its memory limit in bytes; -1 when it has none. */
        long limitBytes() {
            for (Path d : dirs) {
                Optional<String> l = read(d.resolve(v2 ? "memory.max" : "memory.limit_in_bytes"));
                if (l.isPresent()) {
                    String t = l.get().trim();
                    return t.equals("max") || Long.parseLong(t) >= Long.MAX_VALUE / 2 ? -1 : Long.parseLong(t);
                }
            }
            return -1;
        }

        /** How many processes of the group the kernel killed for its memory limit. */
        long oomKills() {
            for (Path d : dirs) {
                long n = stat(d.resolve(v2 ? "memory.events" : "memory.oom_control"), "oom_kill");
                if (n >= 0) {
                    return n;
                }
            }
            return 0;
        }

        /** Sends SIGTERM ({@code kill} false) or SIGKILL to every process in the group. */
        void signal(boolean kill) {
            if (kill && v2 && Files.exists(dirs.get(0).resolve("cgroup.kill"))) {
                try {
                    write(dirs.get(0).resolve("cgroup.kill"), "1");
                    return;
                } catch (IOException ex) {
                    // one by one below
                }
            }
            for (long pid : pids()) {
                ProcessHandle.of(pid).ifPresent(h -> {
                    if (kill) {
                        h.destroyForcibly();
                    } else {
                        h.destroy();
                    }
                });
            }
        }

        /**
         * Kills whatever is left in the group and removes it, trying for up to ten seconds (a killed
         * process leaves its group when the kernel has reaped it). @return true if it is gone
         */
        boolean clear() {
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (true) {
                if (!pids().isEmpty()) {
                    signal(true);
                }
                boolean gone = true;
                for (Path d : dirs) {
                    try {
                        Files.deleteIfExists(d);
                    } catch (IOException ex) {
                        gone = false;
                    }
                }
                if (gone || System.nanoTime() > deadline) {
                    return gone;
                }
                try {
                    Thread.sleep(10); // the kernel reaps on its own time: bounded above
                } catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
    }

    /** The value of {@code key} in a flat-keyed file ({@code key value} per line); -1 if absent. */
    static long stat(Path file, String key) {
        for (String line : read(file).orElse("").split("\n")) {
            int sp = line.indexOf(' ');
            if (sp > 0 && line.substring(0, sp).equals(key)) {
                try {
                    return Long.parseLong(line.substring(sp + 1).trim().split("\\s+")[0]);
                } catch (NumberFormatException ex) {
                    return -1;
                }
            }
        }
        return -1;
    }

    static Optional<String> read(Path file) {
        try {
            return Optional.of(Files.readString(file, StandardCharsets.US_ASCII));
        } catch (IOException | RuntimeException ex) {
            return Optional.empty();
        }
    }

    private static void write(Path file, String value) throws IOException {
        try {
            Files.writeString(file, value, StandardCharsets.US_ASCII);
        } catch (IOException ex) {
            throw new IOException("cannot write " + value + " to " + file + " (" + ex.getMessage() + ")", ex);
        }
    }

    /** Every group below {@code dir}, deepest first (tests and the operator look for what is left). */
    static List<Path> below(Path dir) {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, Files::isDirectory)) {
            for (Path p : ds) {
                out.addAll(below(p));
                out.add(p);
            }
        } catch (IOException ex) {
            // gone
        }
        return out;
    }

    /** One line of /proc/self/mountinfo: where a file system of some type is mounted, which part of it, its options. */
    private record Mount(Path point, String root, String type, Set<String> options) {
        static Mount parse(String line) {
            int dash = line.indexOf(" - ");
            if (dash < 0) {
                return null;
            }
            String[] pre = line.substring(0, dash).split(" ");
            String[] post = line.substring(dash + 3).split(" ");
            if (pre.length < 5 || post.length < 3) {
                return null;
            }
            return new Mount(Path.of(unescape(pre[4])), unescape(pre[3]), post[0], new java.util.HashSet<>(List.of(post[2].split(","))));
        }

        /** The directory of cgroup path {@code p} under this mount (its part of the hierarchy starts at {@code root}). */
        Path inside(String p) {
            String rel = p.startsWith(root) ? p.substring(root.length()) : p.equals(root) ? "" : p;
            rel = rel.startsWith("/") ? rel.substring(1) : rel;
            Path dir = rel.isEmpty() ? point : point.resolve(rel);
            return Files.isDirectory(dir) ? dir : point;
        }

        private static String unescape(String s) {
            return s.replace("\\040", " ").replace("\\011", "\t").replace("\\012", "\n").replace("\\134", "\\");
        }
    }
}
