package granary.sim.trace;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.sim.workload.ReadReport;
import granary.sim.workload.SimJob;
import granary.sim.workload.SimUnit;
import granary.sim.workload.Workload;

/**
 * Alibaba cluster-trace-gpu-v2023 ("openb"): the pod list ({@code openb_pod_list_*.csv}: name,
 * cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos, pod_phase, creation_time, deletion_time,
 * scheduled_time) and the node list ({@code openb_node_list_*.csv}: sn, cpu_milli, memory_mib, gpu,
 * model). Both files have a header line.
 *
 * <p>Mapping: each pod is a job of one unit of one slot: cpu_milli / 10 (Granary counts 1/100
 * cores), memory_mib MiB, and GPUs as the extended resource {@code gpu} — in milli-GPU by default
 * ({@code gpu=milli}: a pod with num_gpu 1 asks gpu_milli, with num_gpu n > 1 asks n × 1000; a node
 * with 8 GPUs has gpu=8000; the GPUs of a node are pooled, a share is not pinned to one device) or
 * in whole GPUs ({@code gpu=whole}: num_gpu, a shared GPU counts as one). It arrives at
 * creation_time and runs deletion − scheduled seconds, or deletion − creation if it was never
 * scheduled. Its QoS gives the priority ({@code priority=qos}: Guaranteed 3, LS 2, Burstable 1,
 * BE 0). Nodes carry the label {@code model=<GPU model>}; they all stand in room {@code r0}.
 */
public final class Gpu2023Reader {

    static final String[] POD_NAMES = {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos",
        "pod_phase", "creation_time", "deletion_time", "scheduled_time"};
    static final String[] NODE_NAMES = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};
    static final Map<String, Integer> QOS = Map.of("Guaranteed", 3, "LS", 2, "Burstable", 1, "BE", 0);
    static final Set<String> PHASES = Set.of("Running", "Failed", "Pending", "Succeeded");
    /** The node list beside a pod list that the default cluster comes from. */
    public static final String NODE_LIST = "openb_node_list_all_node.csv";

    public static final Map<String, String> OPTIONS = options();

    private static Map<String, String> options() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("gpu", "milli (default: 1 GPU = 1000) | whole");
        m.put("priority", "qos (default: Guaranteed 3, LS 2, Burstable 1, BE 0) | const:N");
        m.put("group", "const:NAME (default const:default) | hash:N | qos (group qos-LS, ...)");
        m.put("kind", "offline (default) | qos (LS and Guaranteed pods ONLINE, never revoked; the others OFFLINE)");
        m.put("phases", "pod phases to replay, comma-separated (default all: Failed,Pending,Running,Succeeded)");
        m.put("badRows", "fail (default) | skip");
        m.put("limit", "read at most this many pods (default 0 = all)");
        return m;
    }

    private Gpu2023Reader() {
    }

    public static Workload read(Path path, TraceOptions o, TraceContext ctx) {
        ReadReport report = new ReadReport(path.toString());
        boolean whole = "whole".equals(o.choice("gpu", "milli", "milli", "whole"));
        String priorityRule = o.text("priority", "qos");
        Integer constPriority = priorityRule.equals("qos") ? null : constant(o, priorityRule);
        GroupRule group = GroupRule.parse("gpu2023", o.text("group", "const:default"), Map.of("qos", "qos-"));
        boolean kindByQos = "qos".equals(o.choice("kind", "offline", "offline", "qos"));
        Set<String> phases = phases(o);
        List<SimJob> jobs = new ArrayList<>();
        Map<String, String> seen = new HashMap<>();
        new CsvTable(POD_NAMES, List.<String[]>of(POD_NAMES), "yes").read(path, report, o.skipBadRows(), o.limit(), r -> {
            String name = GroupRule.sanitize(r.text(0));
            long cpuMilli = nonNegative(r, 1);
            long memMib = nonNegative(r, 2);
            long numGpu = nonNegative(r, 3);
            long gpuMilli = r.empty(4) ? 0 : nonNegative(r, 4);
            String qos = r.text(6);
            String phase = r.text(7);
            long created = nonNegative(r, 8);
            long deleted = nonNegative(r, 9);
            Long scheduled = r.empty(10) ? null : nonNegative(r, 10);
            if (!QOS.containsKey(qos)) {
                throw r.bad(6, "'" + qos + "' is not a QoS class; classes: " + new TreeMap<>(QOS).keySet());
            }
            if (!PHASES.contains(phase)) {
                throw r.bad(7, "'" + phase + "' is not a pod phase; phases: " + new java.util.TreeSet<>(PHASES));
            }
            TraceLimits.time(r, 8, created, false);
            TraceLimits.time(r, 9, deleted, false);
            if (scheduled != null) {
                TraceLimits.time(r, 10, scheduled, false);
            }
            long start = scheduled == null ? created : scheduled;
            if (deleted < start) {
                throw r.bad(9, "deletion_time " + deleted + " is before " + (scheduled == null ? "creation_time " : "scheduled_time ") + start);
            }
            TraceLimits.duration(r, 9, deleted - start, "deletion_time - " + (scheduled == null ? "creation_time" : "scheduled_time"));
            if (numGpu == 1 && gpuMilli > 1000) {
                throw r.bad(4, "a share of one GPU must be at most 1000 milli-GPU, got " + gpuMilli);
            }
            String first = seen.putIfAbsent(name, r.where());
            if (first != null) {
                throw r.bad(0, "pod " + name + " appears twice (first at " + first + ")");
            }
            if (!phases.contains(phase)) {
                report.skip("phase " + phase + " not replayed (phases=)", r.where());
                return;
            }
            if (scheduled == null) {
                report.adjust("never scheduled: runs deletion - creation", r.where());
            }
            long gpu = numGpu == 0 ? 0 : whole ? numGpu : numGpu == 1 ? gpuMilli : numGpu * (gpuMilli > 0 ? gpuMilli : 1000);
            Resources slot = Resources.of((cpuMilli + 9) / 10, memMib, gpu > 0 ? Map.of("gpu", gpu) : Map.of());
            if (slot.isZero()) {
                throw r.bad(1, "the pod asks for nothing");
            }
            UnitKind kind = kindByQos && (qos.equals("LS") || qos.equals("Guaranteed")) ? UnitKind.ONLINE : UnitKind.OFFLINE;
            int priority = constPriority != null ? constPriority : QOS.get(qos);
            UnitSpec spec = UnitSpec.builder("pod").slot(slot).desired(1).priority(priority).kind(kind).build();
            jobs.add(new SimJob(name, group.group(name, c -> qos), null, 0, false,
                    List.of(new SimUnit(spec, created * 1000, (deleted - start) * 1000)), r.where()));
        });
        return new Workload(jobs, report, null);
    }

    private static Integer constant(TraceOptions o, String rule) {
        try {
            if (rule.startsWith("const:")) {
                return Integer.parseInt(rule.substring(6).trim());
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw o.bad("priority", "'" + rule + "' is neither qos nor const:N");
    }

    private static Set<String> phases(TraceOptions o) {
        Set<String> s = new java.util.HashSet<>();
        for (String p : o.text("phases", String.join(",", PHASES)).split(",")) {
            if (!PHASES.contains(p.trim())) {
                throw o.bad("phases", "'" + p.trim() + "' is not a pod phase; phases: " + new java.util.TreeSet<>(PHASES));
            }
            s.add(p.trim());
        }
        return s;
    }

    private static long nonNegative(Row r, int i) {
        long v = r.integer(i);
        if (v < 0) {
            throw r.bad(i, "must not be negative, got " + v);
        }
        return v;
    }

    /**
     * Reads a node list: one node per row, capacity cpu_milli / 10, memory_mib, and gpu × 1000
     * milli-GPU (or whole GPUs), label {@code model=<model>} when the model is given.
     */
    public static List<NodeSpec> nodes(Path path, boolean wholeGpus) {
        ReadReport report = new ReadReport(path.toString());
        List<NodeSpec> nodes = new ArrayList<>();
        Map<String, String> seen = new HashMap<>();
        new CsvTable(NODE_NAMES, List.<String[]>of(NODE_NAMES), "yes").read(path, report, false, Long.MAX_VALUE, r -> {
            String name = GroupRule.sanitize(r.text(0));
            long cpu = nonNegative(r, 1);
            long mem = nonNegative(r, 2);
            long gpus = nonNegative(r, 3);
            String model = r.text(4);
            String first = seen.putIfAbsent(name, r.where());
            if (first != null) {
                throw r.bad(0, "node " + name + " appears twice (first at " + first + ")");
            }
            Map<String, String> labels = model.isEmpty() ? Map.of() : Map.of("model", GroupRule.sanitize(model));
            Map<String, Long> ext = gpus > 0 ? Map.of("gpu", wholeGpus ? gpus : gpus * 1000) : Map.of();
            nodes.add(new NodeSpec(name, "r0", Resources.of(cpu / 10, mem, ext), labels));
        });
        return nodes;
    }

    /** The node list beside a pod list, or null. */
    public static Path siblingNodeList(Path podList) {
        Path dir = podList.toAbsolutePath().getParent();
        if (dir == null) {
            return null;
        }
        for (String name : List.of(NODE_LIST, NODE_LIST + ".gz")) {
            if (Files.isRegularFile(dir.resolve(name))) {
                return dir.resolve(name);
            }
        }
        return null;
    }
}
