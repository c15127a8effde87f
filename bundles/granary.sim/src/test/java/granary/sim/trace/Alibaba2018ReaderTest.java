package granary.sim.trace;

import static granary.sim.trace.Files.error;
import static granary.sim.trace.Files.read;
import static granary.testkit.TestFiles.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import granary.api.model.Resources;
import granary.sim.workload.SimJob;
import granary.sim.workload.SimUnit;
import granary.sim.workload.Workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Alibaba cluster-trace-v2018 batch_task.csv (schema.md §1.5), with the DAG in the task names. */
class Alibaba2018ReaderTest {

    private static final TraceFormat F = TraceFormat.ALIBABA_2018;
    private static final String ROWS = String.join("\n",
            "M1,10,j_1,1,Terminated,100,200,100.0,0.39",
            "M2_1,5,j_1,1,Terminated,210,300,50.0,0.2",
            "R3_1_2,1,j_1,1,Terminated,310,400,100.0,1.5",
            "J4_9,1,j_1,1,Terminated,410,420,100,0.1",
            "task_Nzg3ODAwNDgzMTAwNTc2NTQ2Mw==,2,j_2,12,Running,500,0,200,0.5",
            "M5,0,j_3,1,Terminated,1,2,100,0.1",
            "M1,3,j_4,1,Failed,0,1000,100,",
            "");

    @TempDir
    Path dir;

    private static SimJob job(Workload w, String id) {
        return w.jobs().stream().filter(j -> j.id().equals(id)).findFirst().orElse(null);
    }

    @Test
    void readsTasksAndTheirDag() throws IOException {
        Workload w = read(F, write(dir, "batch_task.csv", ROWS));
        assertEquals(7, w.report().rows());
        SimJob j1 = job(w, "j_1");
        assertEquals(List.of("M1", "M2_1", "R3_1_2", "J4_9"), j1.units().stream().map(SimUnit::name).toList());
        SimUnit m1 = j1.unit("M1");
        assertEquals(Resources.of(100, (long) Math.ceil(0.39 / 100 * 262_144)), m1.spec().slot());
        assertEquals(10, m1.spec().desired());
        assertEquals(100_000, m1.arrivalMs());
        assertEquals(100_000, m1.durationMs());
        assertEquals(List.of(), m1.after());
        assertEquals(List.of("M1"), j1.unit("M2_1").after());
        assertEquals(List.of("M1", "M2_1"), j1.unit("R3_1_2").after());
        assertEquals(List.of(), j1.unit("J4_9").after(), "task 9 is not in the job: the dependency is ignored");
        assertEquals(1L, w.report().adjusted().get("dependency on a task the job does not have: ignored"));
    }

    @Test
    void namesAreMadeValidAndUnendedTasksRunToTheTraceEnd() throws IOException {
        Workload w = read(F, write(dir, "batch_task.csv", ROWS));
        SimUnit t = job(w, "j_2").units().get(0);
        assertEquals("task_Nzg3ODAwNDgzMTAwNTc2NTQ2Mw__", t.name());
        assertEquals(500_000, t.arrivalMs());
        assertEquals(500_000, t.durationMs(), "end 0: runs until the trace's last time, 1000 s");
        assertEquals(Map.of("no instances", 1L, "empty request (empty=skip)", 1L), w.report().skipped());
        assertNull(job(w, "j_3"));
    }

    @Test
    void dagCanBeTurnedOffAndEmptyRequestsDefaulted() throws IOException {
        Workload w = read(F, write(dir, "b.csv", ROWS), "dag=false", "empty=default", "defaultMem=1", "group=task_type");
        assertEquals(List.of(), job(w, "j_1").unit("R3_1_2").after());
        assertEquals(Resources.of(100, 2622), job(w, "j_4").units().get(0).spec().slot());
        assertEquals("type-12", job(w, "j_2").group());
    }

    @Test
    void aHeaderLineIsAccepted() throws IOException {
        Workload w = read(F, write(dir, "h.csv", "task_name,instance_num,job_name,task_type,status,start_time,end_time,plan_cpu,plan_mem\n" + ROWS));
        assertEquals(7, w.report().rows());
        assertEquals(2, w.jobs().size(), "j_3 has no instances, j_4 an empty request");
    }

    @Test
    void badRowsNameFileLineAndColumn() throws IOException {
        assertEquals("bad.csv:1:4: field 2 (instance_num): expected a whole number, got 'ten'",
                error(F, write(dir, "bad.csv", "M1,ten,j_1,1,Terminated,1,2,100,1\n")));
        assertEquals("bad.csv:1:12: field 5 (status): 'Done' is not a task status; statuses: "
                + "[Cancelled, Failed, Interrupted, Ready, Running, Terminated, Waiting]",
                error(F, write(dir, "bad.csv", "M1,1,j_1,1,Done,1,2,100,1\n")));
        assertEquals("bad.csv:1:31: field 9 (plan_mem): normalized memory must be within 0..100, got 150",
                error(F, write(dir, "bad.csv", "M1,1,j_1,1,Terminated,1,2,100,150\n")));
        assertEquals("bad.csv:1:27: field 8 (plan_cpu): must not be negative, got -1",
                error(F, write(dir, "bad.csv", "M1,1,j_1,1,Terminated,1,2,-1,1\n")));
        assertEquals("bad.csv:2:1: field 1 (task_name): task M1 of job j_1 appears twice (first at bad.csv:1)",
                error(F, write(dir, "bad.csv", "M1,1,j_1,1,Terminated,1,2,100,1\nM1,1,j_1,1,Terminated,1,2,100,1\n")));
        assertEquals("bad.csv:1:30: expected 9 fields (task_name, instance_num, job_name, task_type, status, start_time, "
                + "end_time, plan_cpu, plan_mem), got 8", error(F, write(dir, "bad.csv", "M1,1,j_1,1,Terminated,1,2,100\n")));
        assertEquals("bad.csv:1:1: field 1 (task_name): is empty",
                error(F, write(dir, "bad.csv", ",1,j_1,1,Terminated,1,2,100,1\n")));
    }
}
