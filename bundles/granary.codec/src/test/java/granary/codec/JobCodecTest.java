package granary.codec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.util.List;
import java.util.Map;
import java.util.Set;

import granary.api.model.JobSpec;
import granary.api.model.Locality;
import granary.api.model.Resources;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JobCodecTest {

    private static List<JobSpec> read(String json) {
        return JobCodec.read(new StringReader(json), "job.json");
    }

    @Test
    void readsEveryField() {
        JobSpec j = read("""
                {"id":"wc-7","group":"root.batch","user":"alice","productionLevel":2,"gang":false,
                 "units":[{"name":"map","slot":{"cpu":100,"mem":2048,"gpu":1},"desired":5,"priority":3,
                   "locality":[{"level":"MACHINE","target":"m1","count":1},{"level":"CLUSTER","count":5}],
                   "maxPerNode":2,"blacklist":["m9"],"nodeSelector":{"disk":"ssd"},"allOrNothing":true,"kind":"ONLINE"}]}
                """).get(0);
        assertEquals("wc-7", j.id());
        assertEquals("root.batch", j.group());
        assertEquals("alice", j.user());
        assertEquals(2, j.productionLevel());
        UnitSpec u = j.unit("map");
        assertEquals(Resources.of(100, 2048, Map.of("gpu", 1L)), u.slot());
        assertEquals(5, u.desired());
        assertEquals(3, u.priority());
        assertEquals(List.of(Locality.machine("m1", 1), Locality.cluster(5)), u.locality());
        assertEquals(2, u.maxPerNode());
        assertEquals(Set.of("m9"), u.blacklist());
        assertEquals(Map.of("disk", "ssd"), u.nodeSelector());
        assertTrue(u.allOrNothing());
        assertEquals(UnitKind.ONLINE, u.kind());
    }

    @Test
    void defaultsAndTextSlot() {
        JobSpec j = read("{\"id\":\"j\",\"units\":[{\"name\":\"u\",\"slot\":\"cpu=50,mem=10\",\"desired\":1}]}").get(0);
        assertEquals(JobSpec.DEFAULT_GROUP, j.group());
        assertEquals(Resources.of(50, 10), j.unit("u").slot());
        assertEquals(UnitKind.OFFLINE, j.unit("u").kind());
    }

    @Test
    void arrayOfJobsAndRoundTrip() {
        List<JobSpec> jobs = read("[{\"id\":\"a\",\"units\":[{\"name\":\"u\",\"slot\":{\"cpu\":1},\"desired\":1}]},"
                + "{\"id\":\"b\",\"group\":\"g\",\"gang\":true,\"units\":[{\"name\":\"u\",\"slot\":{\"mem\":5},\"desired\":2,"
                + "\"locality\":[{\"level\":\"ROOM\",\"target\":\"r1\",\"count\":2}],\"kind\":\"ONLINE\"}]}]");
        assertEquals(2, jobs.size());
        for (JobSpec j : jobs) {
            assertEquals(j, read(JobCodec.write(j)).get(0));
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            syntax error          | {"id":"j",                                                                  | not valid JSON
            trailing content      | {"id":"j","units":[{"name":"u","slot":"cpu=1","desired":1}]} x               | not valid JSON
            not an object         | 42                                                                           | $: expected an object, got the number 42
            missing id            | {"units":[{"name":"u","slot":"cpu=1","desired":1}]}                          | $.id: is missing
            bad id                | {"id":"a b","units":[{"name":"u","slot":"cpu=1","desired":1}]}               | $.id: 'a b' is not a valid name
            unknown job field     | {"id":"j","unit":[]}                                                         | $.unit: unknown field; known fields: gang, group, id, productionLevel, units, user
            units not array       | {"id":"j","units":{}}                                                        | $.units: expected an array, got an object
            no units              | {"id":"j","units":[]}                                                        | $.units: a job needs at least one unit
            missing desired       | {"id":"j","units":[{"name":"u","slot":"cpu=1"}]}                             | $.units[0].desired: is missing
            string desired        | {"id":"j","units":[{"name":"u","slot":"cpu=1","desired":"5"}]}               | $.units[0].desired: expected a whole number, got the string "5"
            fraction desired      | {"id":"j","units":[{"name":"u","slot":"cpu=1","desired":1.5}]}               | $.units[0].desired: expected a whole number, got 1.5
            negative desired      | {"id":"j","units":[{"name":"u","slot":"cpu=1","desired":-1}]}                | $.units[0].desired: must be at least 0, got -1
            negative cpu          | {"id":"j","units":[{"name":"u","slot":{"cpu":-100},"desired":1}]}            | $.units[0].slot.cpu: must not be negative, got -100
            zero slot             | {"id":"j","units":[{"name":"u","slot":{"cpu":0},"desired":1}]}               | $.units[0].slot: must ask for some resource
            bad slot text         | {"id":"j","units":[{"name":"u","slot":"cpu:1","desired":1}]}                 | $.units[0].slot: resources 'cpu:1': entry 'cpu:1' is not name=amount
            missing slot          | {"id":"j","units":[{"name":"u","desired":1}]}                                | $.units[0].slot: is missing
            misspelt unit field   | {"id":"j","units":[{"name":"u","slot":"cpu=1","desird":1}]}                  | $.units[0].desird: unknown field
            bad kind              | {"id":"j","units":[{"name":"u","slot":"cpu=1","desired":1,"kind":"BATCH"}]}  | $.units[0].kind: 'BATCH' is not a kind; use OFFLINE or ONLINE
            bad level             | {"id":"j","units":[{"name":"u","slot":"cpu=1","desired":1,"locality":[{"level":"RACK","target":"r","count":1}]}]} | $.units[0].locality[0]: level 'RACK' is not one of MACHINE, ROOM, CLUSTER
            machine without target| {"id":"j","units":[{"name":"u","slot":"cpu=1","desired":1,"locality":[{"level":"MACHINE","count":1}]}]} | $.units[0].locality[0]: locality MACHINE: target: is missing
            zero count            | {"id":"j","units":[{"name":"u","slot":"cpu=1","desired":1,"locality":[{"level":"CLUSTER","count":0}]}]} | count: must be at least 1, got 0
            duplicate unit        | {"id":"j","units":[{"name":"u","slot":"cpu=1","desired":1},{"name":"u","slot":"cpu=1","desired":1}]} | $.units[1].name: unit name 'u' is used twice
            duplicate job         | [{"id":"j","units":[{"name":"u","slot":"cpu=1","desired":1}]},{"id":"j","units":[{"name":"u","slot":"cpu=1","desired":1}]}] | $[1].id: job id 'j' appears twice in the file
            negative maxPerNode   | {"id":"j","units":[{"name":"u","slot":"cpu=1","desired":1,"maxPerNode":-2}]} | $.units[0].maxPerNode: must be at least 0, got -2
            selector not strings  | {"id":"j","units":[{"name":"u","slot":"cpu=1","desired":1,"nodeSelector":{"a":1}}]} | $.units[0].nodeSelector.a: expected a string, got the number 1
            """)
    void rejectsBadInput(String what, String json, String expected) {
        CodecException e = assertThrows(CodecException.class, () -> read(json));
        assertTrue(e.getMessage().contains("job.json"), e.getMessage());
        assertTrue(e.getMessage().contains(expected), () -> what + ": expected '" + expected + "' in: " + e.getMessage());
    }

    @Test
    void reportsEveryProblemAtOnce() {
        CodecException e = assertThrows(CodecException.class, () -> read(
                "{\"id\":\"j\",\"units\":[{\"name\":\"u\",\"slot\":{\"cpu\":-1},\"desired\":\"x\",\"bogus\":1}]}"));
        assertEquals(3, e.problems().size(), e.describe());
    }
}
