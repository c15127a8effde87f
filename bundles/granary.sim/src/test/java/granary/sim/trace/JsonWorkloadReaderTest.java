package granary.sim.trace;

import static granary.sim.trace.Files.error;
import static granary.sim.trace.Files.read;
import static granary.testkit.TestFiles.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.sim.workload.SimJob;
import granary.sim.workload.SimUnit;
import granary.sim.workload.Workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Granary's workload format: the job file format plus submit times, durations and dependencies; errors with line and column. */
class JsonWorkloadReaderTest {

    private static final TraceFormat F = TraceFormat.JSON;
    static final String WORKLOAD = """
            {
              "nodes": [{"count": 2, "room": "r1", "capacity": {"cpu": 400, "mem": 4096}},
                        {"name": "gpu-1", "room": "r2", "capacity": "cpu=800,mem=8192,gpu=2", "labels": {"disk": "ssd"}}],
              "jobs": [
                {"id": "a", "submit": 1.5, "group": "g1", "user": "alice", "units": [
                  {"name": "extract", "slot": {"cpu": 100, "mem": 512}, "desired": 2, "duration": 10},
                  {"name": "load", "slot": "cpu=100,mem=512", "desired": 1, "duration": 5.25, "after": ["extract"], "submit": 2}
                ]},
                {"id": "b", "gang": true, "units": [{"name": "w", "slot": {"cpu": 100}, "desired": 4, "duration": 60, "priority": 3}]}
              ]
            }
            """;

    @TempDir
    Path dir;

    @Test
    void readsJobsTimesDependenciesAndNodes() throws IOException {
        Workload w = read(F, write(dir, "w.json", WORKLOAD));
        assertEquals(List.of("b", "a"), w.jobs().stream().map(SimJob::id).toList(), "in arrival order");
        SimJob a = w.jobs().get(1);
        assertEquals("g1", a.group());
        assertEquals("alice", a.user());
        assertEquals(1_500, a.arrivalMs());
        SimUnit load = a.unit("load");
        assertEquals(2_000, load.arrivalMs());
        assertEquals(5_250, load.durationMs());
        assertEquals(List.of("extract"), load.after());
        assertEquals(Resources.of(100, 512), load.spec().slot());
        assertEquals(1_500, a.unit("extract").arrivalMs(), "a unit arrives with its job by default");
        SimJob b = w.jobs().get(0);
        assertTrue(b.gang());
        assertEquals("default", b.group());
        assertEquals(3, b.units().get(0).spec().priority());
        assertEquals(List.of(new NodeSpec("r1-n0", "r1", Resources.of(400, 4096)), new NodeSpec("r1-n1", "r1", Resources.of(400, 4096)),
                new NodeSpec("gpu-1", "r2", Resources.parse("cpu=800,mem=8192,gpu=2"), java.util.Map.of("disk", "ssd"))), w.nodes());
    }

    @Test
    void anArrayOfJobsIsAWorkloadWithoutNodes() throws IOException {
        Workload w = read(F, write(dir, "w.json", "[{\"id\": \"x\", \"units\": [{\"name\": \"u\", \"slot\": {\"cpu\": 1}, "
                + "\"desired\": 1, \"duration\": 0}]}]"), "group=const:root.batch");
        assertNull(w.nodes());
        assertEquals("root.batch", w.jobs().get(0).group());
    }

    @Test
    void problemsNameFileLineColumnAndPath() throws IOException {
        String bad = """
                {"jobs": [
                  {"id": "a", "units": [{"name": "u", "slot": {"cpu": -100}, "desired": 1, "duration": 1}]},
                  {"id": "b", "units": [{"name": "u", "slot": {"cpu": 100}, "desired": 1}]},
                  {"id": "c", "colour": "red", "units": [{"name": "u", "slot": {"cpu": 100}, "desired": 1, "duration": 1, "after": ["v"]}]},
                  {"id": "d", "submit": -1, "units": [{"name": "u", "slot": {"cpu": 100}, "desired": 1, "duration": 1, "size": 2}]}
                ]}
                """;
        List<String> lines = error(F, write(dir, "bad.json", bad)).lines().toList();
        assertEquals(List.of(
                "bad.json:2:55: $.jobs[0].units[0].slot.cpu: must not be negative, got -100",
                "bad.json:3:25: $.jobs[1].units[0].duration: is missing (seconds)",
                "bad.json:4:25: $.jobs[2].colour: unknown field; known fields: gang, group, id, productionLevel, submit, units, user",
                "bad.json:5:25: $.jobs[3].submit: must not be negative, got -1",
                "bad.json:5:112: $.jobs[3].units[0].size: unknown field; known fields: after, allOrNothing, blacklist, desired, "
                        + "duration, expectedSeconds, kind, locality, maxPerNode, name, nodeSelector, priority, slot, submit"), lines);
    }

    @Test
    void syntaxErrorsAndKeysGivenTwiceHaveTheirPlace() throws IOException {
        assertEquals("bad.json:2:10: $.jobs[0].id: not valid JSON: expected a value (an object, array, string, number, true, false or null), got '}'",
                error(F, write(dir, "bad.json", "{\"jobs\": [\n  {\"id\": }]}")));
        assertEquals("bad.json:1:21: $.jobs[0].id: key 'id' is given twice in the same object",
                error(F, write(dir, "bad.json", "{\"jobs\": [{\"id\": 1, \"id\": 2}]}")));
        assertEquals("bad.json:1:13: $.jobs: not valid JSON: expected ',' or ']'",
                error(F, write(dir, "bad.json", "{\"jobs\": [1 2]}")));
        assertEquals("bad.json:3:1: $: not valid JSON: unexpected content after the JSON document",
                error(F, write(dir, "bad.json", "[]\n\n[]")));
        assertEquals("bad.json:1:38: $[0].units[0]: a gang job's units arrive with the job: no 'after', and no 'submit' of their own",
                error(F, write(dir, "bad.json", "[{\"id\": \"g\", \"gang\": true, \"units\": [{\"name\": \"u\", \"slot\": {\"cpu\": 1}, "
                        + "\"desired\": 1, \"duration\": 1, \"submit\": 5}]}]")));
        assertEquals("bad.json:1:96: $[0].units[0].after: 'v' is not another unit of job c; units: [u]",
                error(F, write(dir, "bad.json", "[{\"id\": \"c\", \"units\": [{\"name\": \"u\", \"slot\": {\"cpu\": 1}, "
                        + "\"desired\": 1, \"duration\": 1, \"after\": [\"v\"]}]}]")));
    }
}
