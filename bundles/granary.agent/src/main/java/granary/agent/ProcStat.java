package granary.agent;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

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

    /** The CPU time (ns) and resident memory (bytes) of one process; zeros if it is gone. */
    static long[] process(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
            // the name in parentheses may hold spaces: fields count from after its closing parenthesis
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
            String statm = Files.readString(Path.of("/proc", Long.toString(pid), "statm"), StandardCharsets.US_ASCII);
            long rss = Long.parseLong(statm.trim().split(" ")[1]) * PAGE;
            return new long[] {ticks * NANOS_PER_TICK, rss};
        } catch (IOException | RuntimeException ex) {
            return new long[2];
        }
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
