package granary.sim.trace;

import static granary.sim.trace.Files.error;
import static granary.sim.trace.Files.read;
import static granary.testkit.TestFiles.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitKind;
import granary.sim.workload.SimUnit;
import granary.sim.workload.Workload;
import granary.testkit.TestFiles;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Alibaba cluster-trace-gpu-v2023 pod and node lists, GPUs as the extended resource gpu. */
class Gpu2023ReaderTest {

    private static final TraceFormat F = TraceFormat.GPU_2023;
    static final String HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";
    static final String PODS = HEADER + String.join("\n",
            "p0,12000,16384,1,1000,,LS,Running,0,100,0",
            "p1,6000,12288,1,460,,BE,Pending,10,50,",
            "p2,88000,327680,8,1000,V100M16|V100M32,Guaranteed,Succeeded,20,220,30",
            "p3,1005,0,0,0,,Burstable,Failed,5,6,5",
            "");
    static final String NODES = "sn,cpu_milli,memory_mib,gpu,model\nn0,96000,393216,8,G2\nn1,32000,262144,0,\n";

    @TempDir
    Path dir;

    private static SimUnit pod(Workload w, String name) {
        return w.jobs().stream().filter(j -> j.id().equals(name)).findFirst().orElseThrow().units().get(0);
    }

    @Test
    void podsInMilliGpuWithQosPriorities() throws IOException {
        Workload w = read(F, write(dir, "openb_pod_list_default.csv", PODS));
        assertEquals(4, w.jobs().size());
        assertEquals(Resources.of(1200, 16384, Map.of("gpu", 1000L)), pod(w, "p0").spec().slot());
        assertEquals(Resources.of(600, 12288, Map.of("gpu", 460L)), pod(w, "p1").spec().slot());
        assertEquals(Resources.of(8800, 327680, Map.of("gpu", 8000L)), pod(w, "p2").spec().slot());
        assertEquals(Resources.of(101, 0), pod(w, "p3").spec().slot(), "cpu_milli 1005 is 100.5/100 cores, rounded up");
        assertEquals(List.of(2, 0, 3, 1), List.of("p0", "p1", "p2", "p3").stream().map(p -> pod(w, p).spec().priority()).toList());
        assertEquals(40_000, pod(w, "p1").durationMs(), "never scheduled: deletion - creation");
        assertEquals(190_000, pod(w, "p2").durationMs(), "deletion - scheduled");
        assertEquals(20_000, pod(w, "p2").arrivalMs());
        assertEquals(1L, w.report().adjusted().get("never scheduled: runs deletion - creation"));
    }

    @Test
    void wholeGpusQosGroupsAndKinds() throws IOException {
        Workload w = read(F, write(dir, "pods.csv", PODS), "gpu=whole", "group=qos", "kind=qos", "priority=const:7", "phases=Running,Pending");
        assertEquals(2, w.jobs().size());
        assertEquals(1L, pod(w, "p1").spec().slot().get("gpu"), "a shared GPU counts as one");
        assertEquals("qos-LS", w.jobs().get(0).group());
        assertEquals(UnitKind.ONLINE, pod(w, "p0").spec().kind());
        assertEquals(UnitKind.OFFLINE, pod(w, "p1").spec().kind());
        assertEquals(7, pod(w, "p0").spec().priority());
    }

    @Test
    void theNodeListBesideThePodListIsTheDefaultCluster() throws IOException {
        Path pods = write(dir, "openb_pod_list_default.csv", PODS);
        TestFiles.gzip(dir, Gpu2023Reader.NODE_LIST + ".gz", NODES);
        List<NodeSpec> nodes = F.defaultCluster(pods, Map.of());
        assertEquals(2, nodes.size());
        assertEquals(new NodeSpec("n0", "r0", Resources.of(9600, 393216, Map.of("gpu", 8000L)), Map.of("model", "G2")), nodes.get(0));
        assertEquals(new NodeSpec("n1", "r0", Resources.of(3200, 262144)), nodes.get(1));
        assertEquals(8L, F.defaultCluster(pods, Map.of("gpu", "whole")).get(0).capacity().get("gpu"));
    }

    @Test
    void badRowsNameFileLineAndColumn() throws IOException {
        assertEquals("bad.csv:2:24: field 7 (qos): 'Gold' is not a QoS class; classes: [BE, Burstable, Guaranteed, LS]",
                error(F, write(dir, "bad.csv", HEADER + "p0,12000,16384,1,1000,,Gold,Running,0,100,0\n")));
        assertEquals("bad.csv:2:37: field 10 (deletion_time): deletion_time 100 is before scheduled_time 200",
                error(F, write(dir, "bad.csv", HEADER + "p0,12000,16384,1,1000,,LS,Running,0,100,200\n")));
        assertEquals("bad.csv:2:18: field 5 (gpu_milli): a share of one GPU must be at most 1000 milli-GPU, got 1500",
                error(F, write(dir, "bad.csv", HEADER + "p0,12000,16384,1,1500,,LS,Running,0,100,0\n")));
        assertEquals("bad.csv:2:4: field 2 (cpu_milli): must not be negative, got -1",
                error(F, write(dir, "bad.csv", HEADER + "p0,-1,16384,1,1000,,LS,Running,0,100,0\n")));
        String e = error(F, write(dir, "bad.csv", "p0,12000,16384,1,1000,,LS,Running,0,100,0\n"));
        assertTrue(e.startsWith("bad.csv:1:1: expected a header line naming the columns as one of: name,cpu_milli,"), e);
        assertEquals("bad.csv:3:1: field 1 (sn): node n0 appears twice (first at bad.csv:2)",
                assertThrowsNodes(write(dir, "bad.csv", NODES.replace("n1,", "n0,"))));
    }

    private static String assertThrowsNodes(Path p) {
        return org.junit.jupiter.api.Assertions.assertThrows(TraceException.class, () -> Gpu2023Reader.nodes(p, false)).getMessage();
    }
}
