package granary.sim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import granary.api.model.InvalidRequestException;
import granary.sim.run.ClassPathPolicies;
import granary.sim.run.PolicySetSpec;
import granary.sim.trace.TraceFormat;

import org.junit.jupiter.api.Test;

/** The simulator's arguments: policy sets, trace options, numbers; every mistake named. */
class ArgumentsTest {

    private static Arguments.Invocation parse(String... args) {
        return Arguments.parse(List.of(args), new ClassPathPolicies().declarations());
    }

    private static String usageError(String... args) {
        return assertThrows(IllegalArgumentException.class, () -> parse(args)).getMessage();
    }

    @Test
    void policySetsAreSeparatedByBarsAndComposedByCommas() {
        Arguments.Invocation inv = parse("--trace", "swf:x.swf", "--policies", "fifo|fair|quota,submitwindow:windowMillis=2000",
                "--policies=queues");
        List<PolicySetSpec> sets = inv.request().sets();
        assertEquals(List.of("fifo", "fair", "quota,submitwindow:windowMillis=2000", "queues"), sets.stream().map(PolicySetSpec::label).toList());
        assertEquals(new PolicySetSpec.Ref("submitwindow", Map.of("windowMillis", "2000")), sets.get(2).policies().get(1));
        assertEquals(TraceFormat.SWF, inv.request().format());
        assertEquals(Path.of("x.swf"), inv.request().tracePath());
        assertEquals(Path.of("sim-results"), inv.out());
        assertEquals(List.of("fifo"), parse("--trace", "synthetic").request().sets().stream().map(PolicySetSpec::label).toList());
    }

    @Test
    void numbersAndOptionsAreRead() {
        Arguments.Invocation inv = parse("--trace", "synthetic", "--trace-option", "jobs=5", "--trace-option=rate=2",
                "--seed", "42", "--timeout-seconds", "2.5", "--tick-seconds", "0", "--max-jobs", "3", "--until-seconds", "60",
                "--start", "2024-05-01T08:00:00Z", "--out", "o", "--cluster", "nodes=1,cpu=100", "--no-progress");
        assertEquals(Map.of("jobs", "5", "rate", "2"), inv.request().traceOptions());
        assertEquals(42, inv.request().seed());
        assertEquals(2_500, inv.request().settings().timeoutMs());
        assertEquals(0, inv.request().settings().tickMs());
        assertEquals(3, inv.request().maxJobs());
        assertEquals(60_000, inv.request().untilMs());
        assertEquals(1_714_550_400_000L, inv.request().settings().startEpochMs());
        assertEquals(List.of("nodes=1,cpu=100"), inv.request().cluster());
        assertEquals(false, inv.progress());
    }

    @Test
    void mistakesAreNamed() {
        assertEquals("--trace is missing, e.g. --trace alibaba2017:batch_task.csv or --trace synthetic", usageError());
        assertEquals("--trace: format: 'csv' is not a trace format; formats: json, alibaba2017, alibaba2018, swf, gpu2023, synthetic",
                usageError("--trace", "csv:x"));
        assertEquals("--trace swf: give the file, e.g. --trace swf:PATH", usageError("--trace", "swf"));
        assertEquals("unknown option '--polices'; see --help", usageError("--trace", "synthetic", "--polices", "fifo"));
        assertEquals("--seed needs a value; see --help", usageError("--trace", "synthetic", "--seed"));
        assertEquals("--seed 'x' is not a whole number >= 0", usageError("--trace", "synthetic", "--seed", "x"));
        assertEquals("--timeout-seconds '-1' is not a number of seconds >= 0", usageError("--trace", "synthetic", "--timeout-seconds", "-1"));
        assertEquals("--out is given twice", usageError("--trace", "synthetic", "--out", "a", "--out", "b"));
        assertEquals("unexpected argument 'fair': options start with --; see --help", usageError("--trace", "synthetic", "fair"));
        assertEquals("--trace-option 'jobs' is not KEY=VALUE", usageError("--trace", "synthetic", "--trace-option", "jobs"));
        // the quota policy's flags (its declaration's OptionSpec.commandLine), checked by the policy itself
        assertEquals("policy quota: workerSpans: is set but tableFile is not: WorkerSpans belong to a quota table",
                usageError("--trace", "synthetic", "--workers-spans", "default:10"));
        assertTrue(usageError("--trace", "synthetic", "--quota", "/nonexistent/q.json")
                .startsWith("policy quota: tableFile: no such file /nonexistent/q.json"));
        assertEquals("policy quota: zone: 'Mars' is not a time zone (e.g. UTC, Asia/Shanghai)",
                usageError("--trace", "synthetic", "--option", "quota.zone=Mars"));
        assertEquals("--option 'quota' is not NAME.KEY=VALUE, e.g. --option quota.zone=UTC",
                usageError("--trace", "synthetic", "--option", "quota"));
        assertEquals("--policies fifo||fair: set: a policy set is empty (check for '||' or a '|' at an end)",
                assertThrows(InvalidRequestException.class, () -> parse("--trace", "synthetic", "--policies", "fifo||fair"))
                        .getMessage().replace("--policies: set", "--policies fifo||fair: set"));
        assertEquals("--policies fifo:x: fifo: option 'x' is not key=value (write name:key=value:key2=value2)",
                usageError("--trace", "synthetic", "--policies", "fifo:x"));
        assertEquals("--start 'today' is not an instant like 2024-01-01T00:00:00Z", usageError("--trace", "synthetic", "--start", "today"));
    }

    @Test
    void helpAndListsNeedNoTrace() {
        assertTrue(parse("--help").help());
        assertTrue(parse("-h").help());
        assertTrue(parse("--list-policies").listPolicies());
        assertEquals("gpu2023", parse("--list-options", "gpu2023").listOptions());
    }
}
