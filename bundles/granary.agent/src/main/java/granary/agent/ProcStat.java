package granary.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * What processes and the machine use, from {@code /proc} (docs/agent.md, "What is reported"):
 * where workers have no cgroup, and for the whole node. CPU times in {@code /proc} count clock
 * ticks; Linux has counted 100 a second on every common architecture for decades.
 */
final class ProcStat {

    private static final long NANOS_PER_TICK = 10_000_000L;
    private static final long PAGE = 4096;

    private ProcStat() {
    }

    /** One process in a {@link #snapshot}: its parent, CPU time (ns) and resident memory (bytes). */
    record Proc(long ppid, long cpuNanos, long rssBytes) {
    }

    /**
     * Every process of the machine, read once (one file each): a heartbeat's usage of workers
     * without cgroups sums their trees from it, rather than walking {@code /proc} once per worker.
     */
    static Snapshot snapshot() {
        java.util.Map<Long, Proc> out = new java.util.HashMap<>();
        try (java.nio.file.DirectoryStream<Path> ds = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path p : ds) {
                try {
                    String stat = Files.readString(p.resolve("stat"), StandardCharsets.US_ASCII);
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    // after the name: state(3) ppid(4) … utime(14) stime(15) … rss(24, pages)
                    out.put(Long.parseLong(p.getFileName().toString()), new Proc(Long.parseLong(f[1]),
                            (Long.parseLong(f[11]) + Long.parseLong(f[12])) * NANOS_PER_TICK, Long.parseLong(f[21]) * PAGE));
                } catch (IOException | RuntimeException gone) {
                    // ended meanwhile, or not readable: not counted
                }
            }
        } catch (IOException | RuntimeException ex) {
            // no /proc
        }
        java.util.Map<Long, List<Long>> children = new java.util.HashMap<>();
        out.forEach((pid, p) -> children.computeIfAbsent(p.ppid(), k -> new java.util.ArrayList<>()).add(pid));
        return new Snapshot(out, children);
    }

    /** The processes of a moment, and who is whose parent. */
    record Snapshot(java.util.Map<Long, Proc> procs, java.util.Map<Long, List<Long>> children) {
        static final Snapshot EMPTY = new Snapshot(java.util.Map.of(), java.util.Map.of());
    }

    /** The CPU time (ns) and resident memory (bytes) of {@code root} and its descendants in {@code s}. */
    static long[] tree(Snapshot s, long root) {
        java.util.Map<Long, Proc> procs = s.procs();
        java.util.Map<Long, List<Long>> children = s.children();
        long[] sum = new long[2];
        java.util.ArrayDeque<Long> todo = new java.util.ArrayDeque<>(List.of(root));
        java.util.Set<Long> seen = new java.util.HashSet<>();
        while (!todo.isEmpty()) {
            long pid = todo.pop();
            Proc p = procs.get(pid);
            if (p == null || !seen.add(pid)) {
                continue;
            }
            sum[0] += p.cpuNanos();
            sum[1] += p.rssBytes();
            todo.addAll(children.getOrDefault(pid, List.of()));
        }
        return sum;
    }

    /** The machine's CPU time in use so far (all cores, idle and iowait not counted) and memory in use now (total less available). */
    static Launcher.Sample machine() {
        try {
            String first = Files.readAllLines(Path.of("/proc/stat"), StandardCharsets.US_ASCII).get(0);
            String[] f = first.trim().split("\\s+"); // cpu user nice system idle iowait irq softirq steal ...
            long busy = 0;
            for (int i = 1; i < f.length && i <= 8; i++) {
                if (i != 4 && i != 5) {
                    busy += Long.parseLong(f[i]);
                }
            }
            long total = Cgroups.stat(Path.of("/proc/meminfo"), "MemTotal:");
            long available = Cgroups.stat(Path.of("/proc/meminfo"), "MemAvailable:");
            return new Launcher.Sample(busy * NANOS_PER_TICK, Math.max(0, total - available) * 1024);
        } catch (IOException | RuntimeException ex) {
            return null;
        }
    }

    /** The machine's memory in MiB; -1 if not known. */
    static long memoryMiB() {
        long kib = Cgroups.stat(Path.of("/proc/meminfo"), "MemTotal:");
        return kib < 0 ? -1 : kib / 1024;
    }
}
