package granary.sim.trace;

import static granary.testkit.TestFiles.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.stream.Stream;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What every reader refuses since the runaway replays (TraceLimits): times and durations out of
 * range, a trace without jobs, a dependency cycle. Each message names the file and the line (and
 * the column or JSON path), the limit and the value.
 */
class MalformedTracesTest {

    private static final String V2017_HEADER = "create_timestamp,modify_timestamp,job_id,task_id,instance_num,status,plan_cpu,plan_mem\n";
    private static final String V2018_HEADER = "task_name,instance_num,job_name,task_type,status,start_time,end_time,plan_cpu,plan_mem\n";
    private static final String GPU_HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
            + "deletion_time,scheduled_time\n";
    private static final String SWF_HEADER = "; MaxNodes: 4\n; MaxProcs: 16\n";

    @TempDir
    Path dir;

    static Stream<Arguments> cases() {
        return Stream.of(
                // Alibaba v2017
                Arguments.of("alibaba2017", "t.csv", "1,2,1,1,1,Terminated,50,0.01\n400000000,400000100,1,2,1,Terminated,50,0.01\n",
                        "t.csv:2:1: field 1 (task_create_time): time 400,000,000 s is out of range -315,360,000..315,360,000 s (10 years)"),
                Arguments.of("alibaba2017", "t.csv", "0,40000000,1,1,1,Terminated,50,0.01\n",
                        "t.csv:1:3: field 2 (task_end_time): duration end - create = 40,000,000 s is above the limit of 31,536,000 s (1 year)"),
                Arguments.of("alibaba2017", "t.csv", "", "t.csv: no jobs to replay (0 rows read, 0 skipped)"),
                Arguments.of("alibaba2017", "t.csv", V2017_HEADER, "t.csv: no jobs to replay (0 rows read, 0 skipped)"),
                Arguments.of("alibaba2017", "t.csv", V2017_HEADER + "1,2,1,1,0,Terminated,50,0.01\n1,2,1,2,1,Terminated,,\n",
                        "t.csv: no jobs to replay (2 rows read, 2 skipped: no instances 1, empty request (empty=skip) 1)"),
                // Alibaba v2018
                Arguments.of("alibaba2018", "t.csv", "M1,1,j_1,1,Terminated,1,999999999999,100,1\n",
                        "t.csv:1:25: field 7 (end_time): time 999,999,999,999 s is out of range -315,360,000..315,360,000 s (10 years)"),
                Arguments.of("alibaba2018", "t.csv", "M1,1,j_1,1,Terminated,10,50000010,100,1\n",
                        "t.csv:1:26: field 7 (end_time): duration end_time - start_time = 50,000,000 s is above the limit of 31,536,000 s (1 year)"),
                Arguments.of("alibaba2018", "t.csv", V2018_HEADER, "t.csv: no jobs to replay (0 rows read, 0 skipped)"),
                Arguments.of("alibaba2018", "t.csv", "M1_2,1,j1,1,Terminated,50,60,100,0.1\nR2_1,1,j1,1,Terminated,50,60,100,0.1\n",
                        "t.csv:1: job j1: tasks form a cycle: M1_2 -> R2_1 -> M1_2"),
                // SWF
                Arguments.of("swf", "t.swf", SWF_HEADER + "1 400000000 -1 100 8 -1 -1 8 -1 -1 1 3 1 2 0 -1 -1 -1\n",
                        "t.swf:3:3: field 2 (submit): time 400,000,000 s is out of range 0..315,360,000 s (10 years)"),
                Arguments.of("swf", "t.swf", SWF_HEADER + "1 0 -1 40000000 8 -1 -1 8 -1 -1 1 3 1 2 0 -1 -1 -1\n",
                        "t.swf:3:8: field 4 (run): duration run = 40,000,000 s is above the limit of 31,536,000 s (1 year)"),
                Arguments.of("swf", "t.swf", SWF_HEADER, "t.swf: no jobs to replay (0 rows read, 0 skipped)"),
                // GPU v2023
                Arguments.of("gpu2023", "p.csv", GPU_HEADER + "p0,1000,1024,0,0,,BE,Running,400000000,400000010,\n",
                        "p.csv:2:30: field 9 (creation_time): time 400,000,000 s is out of range 0..315,360,000 s (10 years)"),
                Arguments.of("gpu2023", "p.csv", GPU_HEADER + "p0,1000,1024,0,0,,BE,Running,0,40000000,10\n",
                        "p.csv:2:32: field 10 (deletion_time): duration deletion_time - scheduled_time = 39,999,990 s is above the "
                                + "limit of 31,536,000 s (1 year)"),
                Arguments.of("gpu2023", "p.csv", GPU_HEADER, "p.csv: no jobs to replay (0 rows read, 0 skipped)"),
                // Granary's JSON
                Arguments.of("json", "w.json", "[{\"id\": \"a\", \"submit\": 400000000, \"units\": [{\"name\": \"u\", "
                        + "\"slot\": {\"cpu\": 100, \"mem\": 1}, \"desired\": 1, \"duration\": 1}]}]",
                        "w.json:1:24: $[0].submit: time 400000000 s is above the limit of 315,360,000 s (10 years)"),
                Arguments.of("json", "w.json", "[{\"id\": \"a\", \"units\": [{\"name\": \"u\", "
                        + "\"slot\": {\"cpu\": 100, \"mem\": 1}, \"desired\": 1, \"duration\": 4e7}]}]",
                        "w.json:1:96: $[0].units[0].duration: duration 40000000 s is above the limit of 31,536,000 s (1 year)"),
                Arguments.of("json", "w.json", "[{\"id\": \"a\", \"submit\": 315000000, \"units\": [{\"name\": \"u\", "
                        + "\"slot\": {\"cpu\": 100, \"mem\": 1}, \"desired\": 1, \"duration\": 1000000}]}]",
                        "w.json: $[0]: job a unit u: ends at 316,000,000 s (arrival + duration), after the replay span limit of "
                                + "315,360,000 s (10 years)"),
                Arguments.of("json", "w.json", "[]", "w.json: no jobs to replay (0 rows read, 0 skipped)"),
                Arguments.of("json", "w.json", "{\"jobs\": [{\"id\": \"j1\", \"units\": ["
                        + "{\"name\": \"M1\", \"slot\": \"cpu=1\", \"desired\": 1, \"duration\": 1, \"after\": [\"R2\"]},"
                        + "{\"name\": \"R2\", \"slot\": \"cpu=1\", \"desired\": 1, \"duration\": 1, \"after\": [\"M1\"]}]}]}",
                        "w.json:1:104: $.jobs[0].units[0].after: job j1: units form a cycle: M1 -> R2 -> M1"));
    }

    @ParameterizedTest(name = "{0} {3}")
    @MethodSource("cases")
    void isRefusedWithFileAndLine(String format, String name, String text, String expected) {
        Path file = write(dir, name, text);
        String e = assertThrows(TraceException.class, () -> Files.read(TraceFormat.of(format), file)).getMessage();
        assertEquals(expected, e.replace(dir + java.io.File.separator, ""));    }
}
