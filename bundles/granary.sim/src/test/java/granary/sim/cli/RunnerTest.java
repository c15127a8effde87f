package granary.sim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;

import granary.sim.run.ClassPathPolicies;
import granary.sim.run.Progress;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line: one call replays under several sets, prints them side by side and writes the results. */
class RunnerTest {

    @TempDir
    Path dir;

    private static Runner.Outcome run(String... args) {
        return Runner.run(List.of(args), new ClassPathPolicies(), Progress.NONE);
    }

    @Test
    void twoPolicySetsSideBySideWithTheirFiles() throws IOException {
        Path out = dir.resolve("out");
        Runner.Outcome o = run("--trace", "synthetic", "--trace-option", "jobs=300", "--trace-option", "rate=3",
                "--cluster", "nodes=4,cpu=1600,mem=65536", "--policies", "fifo|fair", "--out", out.toString());
        assertEquals(0, o.exit(), o.text());
        List<String> lines = o.text().lines().toList();
        assertTrue(lines.stream().anyMatch(l -> l.matches("policies\\s+fifo\\s+fair")), o.text());
        assertTrue(lines.stream().anyMatch(l -> l.matches("wait-for-resource timeouts \\(> 10 s\\)\\s+[\\d,]+ \\([\\d.]+%\\)\\s+[\\d,]+ \\([\\d.]+%\\)")), o.text());
        assertTrue(lines.stream().anyMatch(l -> l.matches("(equal )?fewest wait-for-resource timeouts: (fifo|fair) \\(.*\\)")), o.text());
        for (String f : List.of("results.json", "summary.txt", "1-fifo/timeseries.csv", "2-fair/timeseries.csv")) {
            assertTrue(Files.isRegularFile(out.resolve(f)), f);
        }
        JsonObject json = JsonParser.parseString(Files.readString(out.resolve("results.json"))).getAsJsonObject();
        assertEquals(2, json.getAsJsonArray("runs").size());
        assertEquals(300, json.getAsJsonObject("trace").get("jobs").getAsInt());
        assertTrue(Files.readString(out.resolve("1-fifo/timeseries.csv")).startsWith("time_s,cpu_util,mem_util,running_slots"));
    }

    @Test
    void quotaTableWorkerSpansAndQueueTreeGoToTheSetsThatTakeThem() throws IOException {
        Path out = dir.resolve("q");
        Runner.Outcome o = run("--trace", "json:examples/workload.json", "--trace-option", "group=hash:3",
                "--quota", "examples/quota.json", "--workers-spans", "default:30000,0-6:40000", "--queues", "examples/queues.json",
                "--policies", "fifo|queues,quota,fifo", "--out", out.toString());
        assertEquals(0, o.exit(), o.text());
        assertTrue(o.text().contains("note [fifo]: --quota not used: no policy of this set takes it"), o.text());
        assertTrue(o.text().contains("note [fifo]: --queues not used: no policy of this set takes it"), o.text());
        // the sampled reports' tables over time, the billing report's table at the end
        assertTrue(Files.readString(out.resolve("2-queues+quota+fifo/groups.csv")).startsWith("time_s,group,id,min,max,used,state,preempted_from,preempted_for,preempted_work_slot_seconds\n"));
        for (String f : List.of("2-queues+quota+fifo/groups.csv", "2-queues+quota+fifo/queues.csv", "2-queues+quota+fifo/billing.csv")) {
            assertTrue(Files.isRegularFile(out.resolve(f)), f);
        }
        o = run("--trace", "json:examples/workload.json", "--quota", "examples/quota.json", "--workers-spans", "default:99999");
        assertEquals(2, o.exit());
        // the quota policy's own refusal: the option (--quota is its tableFile), then the file's problems
        assertEquals("policy quota: tableFile: examples/quota.json: slice default: MaxQuota: WorkerSpans 99999 > sum of MaxQuota 50000\n"
                + "policy quota: tableFile: examples/quota.json: slice 0-6: MaxQuota: WorkerSpans 99999 > sum of MaxQuota 55000",
                o.text().replace("\r", ""));
    }

    @Test
    void badArgumentsAndBadInputAreExitCode2() throws IOException {
        Runner.Outcome o = run("--trace", "synthetic", "--policies", "fifo|nope");
        assertEquals(2, o.exit());
        assertTrue(o.text().startsWith("--policies nope: nope: 'nope' is not installed; policies: "), o.text());
        Path bad = Files.writeString(dir.resolve("bad.csv"), "1,2,3,4,5,Running,50,2\n");
        o = run("--trace", "alibaba2017:" + bad, "--out", dir.resolve("o").toString());
        assertEquals(2, o.exit());
        assertEquals("bad.csv:1:22: field 8 (normalized_memory_requested_per_instance_in_the_task): normalized memory must be within "
                + "0..1, got 2", o.text());
        assertEquals(2, run("--trace", "json:" + dir.resolve("none.json")).exit());
        assertTrue(run("--trace", "synthetic", "--trace-option", "colour=red").text().contains("colour: unknown option; known: "));
        o = run("--trace", "json:" + Files.writeString(dir.resolve("w.json"), "[{\"id\": \"x\", \"units\": [{\"name\": \"u\", "
                + "\"slot\": {\"cpu\": 1}, \"desired\": 1, \"duration\": 1}]}]"));
        assertEquals(2, o.exit());
        assertEquals("--cluster: cluster: the trace json describes no nodes: give --cluster, e.g. nodes=100,cpu=6400,mem=262144", o.text());
    }

    @Test
    void helpAndTheListsOfPoliciesAndOptions() {
        assertTrue(run("--help").text().startsWith("Usage: java -jar granary-sim.jar --trace FORMAT:PATH [options]"));
        String policies = run("--list-policies").text();
        assertTrue(policies.contains("fifo  unit-order\n    fifo:priorityFirst=...  "), policies);
        assertTrue(policies.contains("submitwindow:windowMillis=...  "), policies);
        assertTrue(run("--list-options", "alibaba2017").text().contains("  empty  skip (default) | default"));
    }

    /** {@code java ... granary.sim.cli.Main}: exit codes and streams of the real process. */
    @Test
    void theProcessExitsWithTwoOnBadArguments() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(), "--bogus"));
        Path err = dir.resolve("err.txt");
        Path out = dir.resolve("out.txt");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(2, p.exitValue());
        assertEquals("Error: unknown option '--bogus'; see --help\nRun with --help for usage.\n", Files.readString(err).replace("\r", ""));
        assertEquals("", Files.readString(out));
    }
}
