package granary.sim.cluster;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import granary.api.model.InvalidRequestException;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.sim.trace.Gpu2023Reader;
import granary.sim.trace.JsonWorkloadReader;

/**
 * The cluster of a replay ({@code --cluster}, repeatable; the parts are joined):
 * <ul>
 *   <li>{@code nodes=N,cpu=C,mem=M[,gpu=G,...][,rooms=R][,prefix=P][,label.K=V]} — N alike nodes
 *       (cpu in 1/100 cores, mem in MiB, any other key an extended resource) spread evenly over R
 *       rooms {@code r0..r<R-1>} (default 1), named {@code <room>-n<index>} (or {@code <prefix><index>});</li>
 *   <li>{@code file:PATH} — a JSON cluster file ({@code {"nodes": [...]}}: one entry per node, or
 *       {@code count} alike nodes);</li>
 *   <li>{@code gpu2023:PATH} — the node list of the Alibaba GPU trace ({@code openb_node_list_*.csv}).</li>
 * </ul>
 */
public final class ClusterSpec {

    private ClusterSpec() {
    }

    /** Nodes of every part, in order; names must be unique across parts. */
    public static List<NodeSpec> parse(List<String> parts, boolean wholeGpus) {
        List<NodeSpec> all = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (String p : parts) {
            for (NodeSpec n : parse(p, wholeGpus)) {
                if (!names.add(n.name())) {
                    throw new InvalidRequestException("--cluster " + p, "name", "node '" + n.name()
                            + "' is named twice; give the parts different rooms or prefixes");
                }
                all.add(n);
            }
        }
        return all;
    }

    static List<NodeSpec> parse(String spec, boolean wholeGpus) {
        String s = spec.trim();
        if (s.startsWith("file:")) {
            return JsonWorkloadReader.clusterFile(Path.of(s.substring(5)));
        }
        if (s.startsWith("gpu2023:")) {
            return Gpu2023Reader.nodes(Path.of(s.substring(8)), wholeGpus);
        }
        return uniform(s);
    }

    private static List<NodeSpec> uniform(String spec) {
        String subject = "--cluster " + spec;
        long count = -1;
        int rooms = 1;
        String prefix = null;
        long cpu = 0;
        long mem = 0;
        Map<String, Long> ext = new TreeMap<>();
        Map<String, String> labels = new TreeMap<>();
        for (String part : spec.split(",")) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw new InvalidRequestException(subject, part, "expected key=value: nodes=N,cpu=C,mem=M[,gpu=G][,rooms=R]"
                        + "[,label.K=V], file:PATH or gpu2023:PATH");
            }
            String k = part.substring(0, eq).trim();
            String v = part.substring(eq + 1).trim();
            if (k.startsWith("label.")) {
                labels.put(k.substring(6), v);
                continue;
            }
            if (k.equals("prefix")) {
                prefix = v;
                continue;
            }
            long n = number(subject, k, v);
            switch (k) {
                case "nodes" -> count = n;
                case "rooms" -> rooms = (int) n;
                case "cpu" -> cpu = n;
                case "mem", "memMb" -> mem = n;
                default -> ext.put(k, n);
            }
        }
        if (count < 1 || count > 10_000_000) {
            throw new InvalidRequestException(subject, "nodes", count < 0 ? "is missing: nodes=N" : "must be 1..10000000, got " + count);
        }
        if (rooms < 1 || rooms > count) {
            throw new InvalidRequestException(subject, "rooms", "must be 1.." + count + ", got " + rooms);
        }
        Resources capacity = Resources.of(cpu, mem, ext);
        if (capacity.isZero()) {
            throw new InvalidRequestException(subject, "cpu", "a node needs some capacity, e.g. cpu=6400,mem=262144");
        }
        return nodes(count, rooms, prefix, capacity, labels);
    }

    private static List<NodeSpec> nodes(long count, int rooms, String prefix, Resources capacity, Map<String, String> labels) {
        List<NodeSpec> out = new ArrayList<>((int) count);
        int width = Long.toString(count - 1).length();
        for (long i = 0; i < count; i++) {
            String room = "r" + (i * rooms / count);
            String name = (prefix != null ? prefix : room + "-n") + String.format("%0" + width + "d", i);
            out.add(new NodeSpec(name, room, capacity, labels));
        }
        return out;
    }

    private static long number(String subject, String key, String v) {
        try {
            long n = Long.parseLong(v);
            if (n < 0) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new InvalidRequestException(subject, key, "'" + v + "' is not a whole number >= 0");
        }
    }
}
