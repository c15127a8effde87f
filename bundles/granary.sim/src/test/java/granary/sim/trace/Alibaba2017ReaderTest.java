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

import granary.api.model.Resources;
import granary.sim.workload.SimJob;
import granary.sim.workload.SimUnit;
import granary.sim.workload.Workload;
import granary.testkit.TestFiles;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Alibaba cluster-trace-v2017 batch_task.csv: the official header-less file, a header line, the quirks, bad rows. */
class Alibaba2017ReaderTest {

    private static final TraceFormat F = TraceFormat.ALIBABA_2017;
    private static final String ROWS = String.join("\n",
            "6459,6524,3,4,15740,Terminated,50,0.007956928",
            "6457,6533,3,5,1,Terminated,50,0.004395206",
            "-60,-55,6168,37197,1,Terminated,100,0.5",
            "51997,0,376,1955,2,Running,100,0.002754122",
            "6036,6046,4,7,393,Waiting,,",
            "7000,7000,5,8,0,Terminated,50,0.1",
            "7000,7100,5,9,3,Failed,50,0.25",
            "");

    @TempDir
    Path dir;

    @Test
    void readsTheOfficialHeaderlessFile() throws IOException {
        Workload w = read(F, write(dir, "batch_task.csv", ROWS));
        assertEquals(7, w.report().rows());
        assertEquals(Map.of("empty request (empty=skip)", 1L, "no instances", 1L), w.report().skipped());
        assertEquals(List.of("batch_task.csv:5"), w.report().examples("empty request (empty=skip)"));
        // jobs in arrival order: job-6168 (t=0), job-3 (6457), job-5 (7000), job-376 (51997)
        assertEquals(List.of("job-6168", "job-3", "job-5", "job-376"), w.jobs().stream().map(SimJob::id).toList());
        SimJob j3 = w.jobs().get(1);
        SimUnit t4 = j3.unit("task-4");
        assertEquals(15740, t4.spec().desired());
        assertEquals(Resources.of(50, (long) Math.ceil(0.007956928 * 262_144)), t4.spec().slot());
        assertEquals(6_459_000, t4.arrivalMs());
        assertEquals(65_000, t4.durationMs());
        assertEquals(6_457_000, j3.arrivalMs(), "a job arrives with its first task");
        assertEquals("default", j3.group());
    }

    @Test
    void negativeTimesAreClampedAndUnendedTasksRunToTheTraceEnd() throws IOException {
        Workload w = read(F, write(dir, "batch_task.csv", ROWS));
        SimUnit early = w.jobs().get(0).unit("task-37197");
        assertEquals(0, early.arrivalMs(), "created before the trace: requested at 0");
        assertEquals(5_000, early.durationMs(), "the run time is still end - create");
        SimUnit running = w.jobs().get(3).unit("task-1955");
        assertEquals(51_997_000, running.arrivalMs());
        assertEquals((51_997 - 51_997) * 1000, running.durationMs(), "the trace's last time is its own create time here");
        assertEquals(1L, w.report().adjusted().get("create time <= 0 (before the trace): requested at 0"));
        assertEquals(1L, w.report().adjusted().get("end before create (not ended in the trace): runs until the trace's last time"));
    }

    @Test
    void aHeaderLineIsAcceptedInEachSpelling() throws IOException {
        Workload plain = read(F, write(dir, "a.csv", ROWS));
        for (String header : List.of(
                "task_create_time, task_end_time, job_id, task_id,number_of_instances, status, "
                        + "number_of_cpus_requested_per_instance_in_the_task,normalized_memory_requested_per_instance_in_the_task",
                "task create time,task end time,job id,task id,number of instances,status,number of cpus requested per "
                        + "instance in the task,normalized memory requested per instance in the task",
                "create_timestamp,modify_timestamp,job_id,task_id,instance_num,status,plan_cpu,plan_mem")) {
            Workload w = read(F, write(dir, "h.csv", header + "\r\n" + ROWS.replace("\n", "\r\n")));
            assertEquals(content(plain), content(w), header);
            assertEquals("line 1", w.report().facts().get("header"));
            assertEquals(7, w.report().rows(), "the header is not a row");
        }
    }

    @Test
    void emptyRequestsCanBeDefaulted() throws IOException {
        Workload w = read(F, write(dir, "b.csv", ROWS), "empty=default", "defaultCpu=100", "defaultMem=0.25");
        SimUnit waiting = w.jobs().stream().filter(j -> j.id().equals("job-4")).findFirst().orElseThrow().unit("task-7");
        assertEquals(Resources.of(100, 65_536), waiting.spec().slot());
        assertEquals(1L, w.report().defaulted().get("empty request -> defaultCpu/defaultMem (empty=default)"));
        assertEquals(Map.of("no instances", 1L), w.report().skipped());
    }

    @Test
    void optionsSelectStatusesGroupsAndTheUnendedRule() throws IOException {
        Path f = write(dir, "c.csv", ROWS);
        Workload w = read(F, f, "statuses=Terminated", "unended=skip", "group=hash:3", "priority=2", "memMb=1000");
        assertEquals(2L, w.report().skipped().get("status Running not replayed (statuses=)")
                + w.report().skipped().get("status Failed not replayed (statuses=)"));
        assertTrue(w.jobs().stream().allMatch(j -> j.group().matches("g[0-2]")), w.jobs().toString());
        assertEquals(2, w.jobs().get(0).units().get(0).spec().priority());
        assertEquals(Resources.of(100, 500), w.jobs().get(0).units().get(0).spec().slot(), "memMb scales memory");
        Workload skip = read(F, f, "unended=skip");
        assertEquals(1L, skip.report().skipped().get("end before create (not ended in the trace; unended=skip)"));
    }

    @Test
    void badRowsNameFileLineAndColumn() throws IOException {
        assertEquals("bad.csv:2:7: field 4 (task_id): expected a whole number, got 'x'",
                error(F, write(dir, "bad.csv", "1,2,3,4,5,Terminated,50,0.1\n1,2,3,x,5,Terminated,50,0.1\n")));
        assertEquals("bad.csv:1:24: expected 8 fields (task_create_time, task_end_time, job_id, task_id, number_of_instances, "
                        + "status, number_of_cpus_requested_per_instance_in_the_task, normalized_memory_requested_per_instance_in_the_task), got 7",
                error(F, write(dir, "bad.csv", "1,2,3,4,5,Terminated,50\n")));
        assertEquals("bad.csv:1:11: field 6 (status): 'Done' is not a task status; statuses: "
                        + "[Cancelled, Failed, Ready, Running, Terminated, Waiting]",
                error(F, write(dir, "bad.csv", "1,2,3,4,5,Done,50,0.1\n")));
        assertEquals("bad.csv:1:19: field 7 (number_of_cpus_requested_per_instance_in_the_task): must not be negative, got -50",
                error(F, write(dir, "bad.csv", "1,2,3,4,5,Running,-50,0.1\n")));
        assertEquals("bad.csv:1:22: field 8 (normalized_memory_requested_per_instance_in_the_task): normalized memory must be "
                + "within 0..1, got 1.5", error(F, write(dir, "bad.csv", "1,2,3,4,5,Running,50,1.5\n")));
        assertEquals("bad.csv:1:9: field 5 (number_of_instances): must be between 0 and 2147483647, got -5",
                error(F, write(dir, "bad.csv", "1,2,3,4,-5,Running,50,0.1\n")));
        assertEquals("bad.csv:2:7: field 4 (task_id): task task-4 of job-3 appears twice (first at bad.csv:1)",
                error(F, write(dir, "bad.csv", "1,2,3,4,5,Running,50,0.1\n1,2,3,4,5,Running,50,0.1\n")));
        assertEquals("bad.csv:1:19: field 7 (number_of_cpus_requested_per_instance_in_the_task): the request is zero in cpu "
                + "and in memory", error(F, write(dir, "bad.csv", "1,2,3,4,5,Running,0,0\n")));
        assertEquals("bad.csv:2:1: field 1 (task_create_time): expected a whole number, got '1.5'",
                error(F, write(dir, "bad.csv", "2,3,3,4,5,Running,50,0.1\n1.5,2,3,4,5,Running,50,0.1\n")));
    }

    @Test
    void aForeignHeaderIsRefused() throws IOException {
        String e = error(F, write(dir, "h.csv", "start,end,job,task,n,status,cpu,mem\n1,2,3,4,5,Running,50,0.1\n"));
        assertTrue(e.startsWith("h.csv:1:1: the first line is not a number, so it must be a header naming the columns as one of: "
                + "task_create_time,task_end_time,"), e);
        assertTrue(e.endsWith("; got: start,end,job,task,n,status,cpu,mem"), e);
        assertEquals("h.csv:1:1: field 1 (task_create_time): expected a whole number, got 'start'",
                error(F, write(dir, "h.csv", "start,end,job,task,n,status,cpu,mem\n"), "header=no"));
    }

    @Test
    void everyProblemIsListedOrBadRowsAreCountedWithBadRowsSkip() throws IOException {
        Path f = write(dir, "bad.csv", "1,2,3,4,5,Running,50,0.1\nx,2,3,5,5,Running,50,0.1\n1,2,3,6,5,Nope,50,0.1\n");
        String e = error(F, f);
        assertEquals(2, e.lines().count(), e);
        Workload w = read(F, f, "badRows=skip");
        assertEquals(1, w.jobs().size());
        assertEquals(2L, w.report().skipped().get("bad row"));
        assertTrue(w.report().examples("bad row").get(0).startsWith("bad.csv:2:1: "), w.report().examples("bad row").toString());
    }

    @Test
    void gzipIsReadTransparentlyAndLimitStopsEarly() throws IOException {
        Workload gz = read(F, TestFiles.gzip(dir, "batch_task.csv.gz", ROWS));
        assertEquals(read(F, write(dir, "batch_task.csv", ROWS)).jobs().size(), gz.jobs().size());
        assertEquals(2, read(F, write(dir, "l.csv", ROWS), "limit=2").report().rows());
    }

    @Test
    void unknownOptionsAndBadValuesAreRefusedByName() throws IOException {
        Path f = write(dir, "o.csv", ROWS);
        String e = Files.optionError(F, f, "emtpy=skip");
        assertTrue(e.startsWith("trace alibaba2017: emtpy: unknown option; known: badRows, defaultCpu, defaultMem, empty, group, "
                + "header, limit, memMb, priority, statuses, unended"), e);
        assertEquals("trace alibaba2017: empty: 'maybe' is not one of skip, default", Files.optionError(F, f, "empty=maybe"));
        assertEquals("trace alibaba2017: group: 'user' is not const:NAME, hash:N", Files.optionError(F, f, "group=user"));
        assertEquals("trace alibaba2017: memMb: unknown: give memMb=<MiB of normalized memory 1.0> or a cluster (--cluster)",
                assertThrowsOption(f));
    }

    /** Jobs without where they came from (line numbers differ with a header line). */
    private static List<String> content(Workload w) {
        return w.jobs().stream().map(j -> j.id() + " " + j.group() + " " + j.units()).toList();
    }

    private static String assertThrowsOption(Path f) {
        return org.junit.jupiter.api.Assertions.assertThrows(granary.api.model.InvalidRequestException.class,
                () -> F.read(f, Map.of(), new TraceContext(0, false, 1))).getMessage();
    }
}
