package granary.bench.wire;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** CPU time and resident memory of a process, from Linux's /proc (-1 elsewhere). */
final class Proc {

    private static final double TICKS_PER_SECOND = 100.0; // USER_HZ: 100 on every Linux this runs on

    private Proc() {
    }

    /** utime + stime of {@code pid} in seconds, or -1. */
    static double cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            // the command name (field 2) may hold spaces: fields after its closing parenthesis
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND; // fields 14 and 15
        } catch (IOException | RuntimeException ex) {
            return ProcessHandle.of(pid).flatMap(h -> h.info().totalCpuDuration()).map(d -> d.toNanos() / 1e9).orElse(-1.0);
        }
    }

    /** VmRSS of {@code pid} in MiB, or -1. */
    static double rssMib(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        } catch (IOException | RuntimeException ex) {
            // not Linux
        }
        return -1;
    }

    /** Threads of {@code pid}, or -1. */
    static int threads(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("Threads:")) {
                    return Integer.parseInt(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException ex) {
            // not Linux
        }
        return -1;
    }

    /** This process's soft limit of open files, from /proc/self/limits; {@code Long.MAX_VALUE} when unknown or unlimited. */
    static long openFilesLimit() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max open files")) {
                    String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                    return soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
                }
            }
        } catch (IOException | RuntimeException ex) {
            // not Linux
        }
        return Long.MAX_VALUE;
    }
}
