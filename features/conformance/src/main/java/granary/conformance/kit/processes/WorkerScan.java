package granary.conformance.kit.processes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The workers of a cluster's agents as the operating system lists them, whoever started them and
 * whatever any role believes: every process in {@code /proc} whose environment names an exit file
 * ({@code GRANARY_EXIT_FILE}, set by the agent's {@code OsLauncher}) under the cluster's directory.
 * A worker's wrapper, its command and that command's children share that environment, so each of
 * them is listed. Linux only; elsewhere the list is empty.
 */
public final class WorkerScan {

    /** One process of a worker: its pid, and the node, unit ({@code job/unit}) and slot its agent started it for. */
    public record Worker(long pid, String node, String unit, int slot) {

        /** The job of its unit. */
        public String job() {
            int slash = unit.indexOf('/');
            return slash < 0 ? unit : unit.substring(0, slash);
        }

        @Override
        public String toString() {
            return "pid " + pid + " " + unit + " slot " + slot + " on " + node;
        }
    }

    private WorkerScan() {
    }

    /** The processes of workers started by agents whose work directories lie under {@code clusterDir}. */
    public static List<Worker> scan(Path clusterDir) {
        String prefix = "GRANARY_EXIT_FILE=" + clusterDir.toAbsolutePath().normalize() + "/";
        List<Worker> out = new ArrayList<>();
        Path proc = Path.of("/proc");
        if (!Files.isDirectory(proc)) {
            return out;
        }
        try (Stream<Path> pids = Files.list(proc)) {
            pids.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit)).forEach(p -> {
                Map<String, String> env = environment(p.resolve("environ"), prefix);
                if (env != null) {
                    try {
                        out.add(new Worker(Long.parseLong(p.getFileName().toString()), env.getOrDefault("GRANARY_NODE", "?"),
                                env.getOrDefault("GRANARY_UNIT", "?"), Integer.parseInt(env.getOrDefault("GRANARY_SLOT", "-1"))));
                    } catch (NumberFormatException ex) {
                        // not one of ours after all
                    }
                }
            });
        } catch (IOException | RuntimeException ex) {
            throw new ProcessFailure("cannot list the processes in /proc: " + ex.getMessage());
        }
        return out;
    }

    /** The GRANARY_ variables of a process whose exit file starts with {@code prefix}; null for any other, or one gone. */
    private static Map<String, String> environment(Path file, String prefix) {
        byte[] b;
        try {
            b = Files.readAllBytes(file);
        } catch (IOException | RuntimeException ex) {
            return null;
        }
        Map<String, String> env = new HashMap<>();
        boolean ours = false;
        for (String kv : new String(b, StandardCharsets.UTF_8).split("\0")) {
            if (kv.startsWith("GRANARY_")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    env.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
                ours |= kv.startsWith(prefix);
            }
        }
        return ours ? env : null;
    }
}
