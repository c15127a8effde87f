package granary.policy.quota.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.util.Set;

import granary.api.model.InvalidRequestException;
import granary.api.model.Resources;
import granary.policy.quota.api.Quota;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.TimeSlice;
import granary.policy.quota.api.WorkerSpans;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class QuotaTableCodecTest {

    /** The article's example table, verbatim. */
    static final String ARTICLE = """
            { "default": { "group1": {"GroupId":1,"MaxQuota":5000,"MinQuota":3000},
                           "group2": {"GroupId":2,"MaxQuota":5000,"MinQuota":2000} },
              "0-9":     { "group1": {"GroupId":1,"MaxQuota":15000,"MinQuota":10000},
                           "group3": {"GroupId":3,"MaxQuota":3000,"MinQuota":3000} } }
            """;

    static QuotaTable read(String json, String spans) {
        return QuotaTableCodec.read(new StringReader(json), "quota.json", QuotaTableCodec.workerSpans(spans));
    }

    @Test
    void readsTheArticleTableWithItsWorkerSpans() {
        QuotaTable t = read(ARTICLE, "default:5000,0-9:15000");
        assertTrue(t.workerForm());
        assertEquals(TimeSlice.parse("0-9"), t.sliceAt(0));
        assertEquals(TimeSlice.parse("0-9"), t.sliceAt(8));
        assertEquals(TimeSlice.DEFAULT, t.sliceAt(9));
        assertEquals(TimeSlice.DEFAULT, t.sliceAt(23));
        assertEquals(Set.of("group1", "group3"), t.groups(t.sliceAt(3)).keySet());    // group3 only from 0 to 9
        assertFalse(t.groups(t.sliceAt(12)).containsKey("group3"));
        assertEquals(Quota.workers(15000), t.groups(TimeSlice.parse("0-9")).get("group1").max());
        assertEquals(Quota.workers(5000), t.groups(TimeSlice.DEFAULT).get("group1").max());   // at 09:00 group1's limits drop
        assertEquals(15000L, t.workerSpans().at(TimeSlice.parse("0-9")));
        assertEquals(t, read(QuotaTableCodec.write(t), "default:5000,0-9:15000"));
    }

    @Test
    void resourceVectorQuotasAndWrappingSlices() {
        QuotaTable t = read("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": {"cpu": 40000, "mem": 163840}, "MinQuota": "cpu=10000,mem=40960"}},
                 "22-6":   {"a": {"GroupId": 1, "MaxQuota": {"cpu": 80000, "mem": 327680, "gpu": 8}, "MinQuota": {"cpu": 0}}}}
                """, null);
        assertFalse(t.workerForm());
        assertEquals(TimeSlice.parse("22-6"), t.sliceAt(23));
        assertEquals(TimeSlice.parse("22-6"), t.sliceAt(5));
        assertEquals(TimeSlice.DEFAULT, t.sliceAt(6));
        assertEquals(Resources.of(10000, 40960), t.groups(TimeSlice.DEFAULT).get("a").min().resources());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            not JSON                 | {"default": {                                                                      |        | not valid JSON
            not an object            | [1, 2]                                                                             |        | $: expected an object, got an array
            slice not an object      | {"default": 5}                                                                     |        | $.default: expected an object, got the number 5
            group not an object      | {"default": {"g": 5}}                                                              |        | $.default.g: expected an object, got the number 5
            malformed slice key      | {"default": {}, "morning": {}}                                                     |        | slice 'morning': key: is neither 'default' nor an hour range
            slice hour out of range  | {"default": {}, "0-25": {}}                                                        |        | hours must be 0 <= from <= 23, 1 <= to <= 24
            empty slice range        | {"default": {}, "9-9": {}}                                                         |        | from != to; got 9-9
            non-numeric hours        | {"default": {}, "a-b": {}}                                                         |        | hours must be whole numbers, as in '0-9', got 'a-b'
            overlapping slices       | {"default": {}, "0-9": {}, "8-12": {}}                                             |        | slices 0-9 and 8-12: hours: overlap at hours 8-9
            wrapping overlap         | {"default": {}, "22-6": {}, "5-7": {}}                                             |        | slices 22-6 and 5-7: hours: overlap at hours 5-6
            hours uncovered          | {"0-9": {"g": {"GroupId": 1, "MaxQuota": 1, "MinQuota": 0}}}                       |        | hours 9-24 are in no slice and there is no 'default' slice
            missing GroupId          | {"default": {"g": {"MaxQuota": 5, "MinQuota": 1}}}                                 |        | $.default.g.GroupId: is missing
            missing MaxQuota         | {"default": {"g": {"GroupId": 1, "MinQuota": 1}}}                                  |        | $.default.g.MaxQuota: is missing
            misspelt field           | {"default": {"g": {"GroupId": 1, "MaxQuota": 5, "MinQuota": 1, "MaxQuta": 9}}}     |        | $.default.g.MaxQuta: unknown field; known fields: GroupId, MaxQuota, MinQuota
            lower-case field         | {"default": {"g": {"groupId": 1, "MaxQuota": 5, "MinQuota": 1}}}                   |        | $.default.g.groupId: unknown field
            quota not a number       | {"default": {"g": {"GroupId": 1, "MaxQuota": true, "MinQuota": 1}}}                |        | $.default.g.MaxQuota: expected an object, got true
            fractional quota         | {"default": {"g": {"GroupId": 1, "MaxQuota": 2.5, "MinQuota": 1}}}                 |        | $.default.g.MaxQuota: expected a whole number, got 2.5
            negative MinQuota        | {"default": {"g": {"GroupId": 1, "MaxQuota": 5, "MinQuota": -1}}}                  |        | slice default, group g: MinQuota: must not be negative, got -1
            negative GroupId         | {"default": {"g": {"GroupId": -3, "MaxQuota": 5, "MinQuota": 1}}}                  |        | slice default, group g: GroupId: must not be negative, got -3
            Min above Max            | {"default": {"g": {"GroupId": 1, "MaxQuota": 5000, "MinQuota": 6000}}}             |        | slice default, group g: MinQuota: MinQuota 6000 > MaxQuota 5000
            Min above Max resources  | {"default": {"g": {"GroupId": 1, "MaxQuota": {"cpu": 10}, "MinQuota": {"cpu": 20}}}} |      | MinQuota cpu=20,mem=0 > MaxQuota cpu=10,mem=0
            GroupId differs          | {"default": {"g": {"GroupId": 1, "MaxQuota": 5, "MinQuota": 1}}, "0-9": {"g": {"GroupId": 4, "MaxQuota": 5, "MinQuota": 1}}} | | group g: GroupId: is 1 in slice default but 4 in slice 0-9
            GroupId shared           | {"default": {"g": {"GroupId": 1, "MaxQuota": 5, "MinQuota": 1}, "h": {"GroupId": 1, "MaxQuota": 5, "MinQuota": 1}}} | | slice default, group h: GroupId: GroupId 1 is already the id of group g
            mixed forms              | {"default": {"g": {"GroupId": 1, "MaxQuota": 5, "MinQuota": 1}, "h": {"GroupId": 2, "MaxQuota": {"cpu": 5}, "MinQuota": {"cpu": 1}}}} | | slice default, group h: MaxQuota: is a resource vector but the table counts a worker count
            bad group name           | {"default": {"a b": {"GroupId": 1, "MaxQuota": 5, "MinQuota": 1}}}                 |        | slice default, group a b: name: 'a b' is not a valid group name
            group given twice        | {"default": {"g": {"GroupId": 1, "MaxQuota": 5, "MinQuota": 1}, "g": {"GroupId": 1, "MaxQuota": 6, "MinQuota": 1}}} | | $.default.g: key 'g' is given twice in the same object
            slice given twice        | {"default": {}, "default": {}}                                                     |        | $.default: key 'default' is given twice
            one slice, two keys      | {"default": {}, "0-9": {}, "00-9": {}}                                             |        | slice '00-9': key: is slice 0-9 again (as '0-9')
            sum of Min overflows     | {"default": {"a": {"GroupId": 1, "MaxQuota": 9223372036854775807, "MinQuota": 9223372036854775807}, "b": {"GroupId": 2, "MaxQuota": 9223372036854775807, "MinQuota": 9223372036854775807}}} | default:9223372036854775807 | slice default: MinQuota: sum of MinQuota is more than 9223372036854775807, the largest amount, > WorkerSpans 9223372036854775807
            sum of Min above spans   | {"default": {"a": {"GroupId": 1, "MaxQuota": 5000, "MinQuota": 3000}, "b": {"GroupId": 2, "MaxQuota": 5000, "MinQuota": 2500}}} | default:5000 | slice default: MinQuota: sum of MinQuota 5500 > WorkerSpans 5000
            spans above sum of Max   | {"default": {"a": {"GroupId": 1, "MaxQuota": 2000, "MinQuota": 0}, "b": {"GroupId": 2, "MaxQuota": 2000, "MinQuota": 0}}}       | default:5000 | slice default: MaxQuota: WorkerSpans 5000 > sum of MaxQuota 4000
            article 0-9 violated     | {"default": {"group1": {"GroupId":1,"MaxQuota":5000,"MinQuota":3000}, "group2": {"GroupId":2,"MaxQuota":5000,"MinQuota":2000}}, "0-9": {"group1": {"GroupId":1,"MaxQuota":15000,"MinQuota":10000}, "group3": {"GroupId":3,"MaxQuota":3000,"MinQuota":3000}}} | default:5000,0-9:20000 | slice 0-9: MaxQuota: WorkerSpans 20000 > sum of MaxQuota 18000
            spans name unknown slice | {"default": {"a": {"GroupId": 1, "MaxQuota": 5000, "MinQuota": 0}}}               | default:5000,10-12:100 | slice 10-12: is not a slice of the quota table
            spans without default    | {"default": {"a": {"GroupId": 1, "MaxQuota": 5000, "MinQuota": 0}}, "0-9": {"a": {"GroupId": 1, "MaxQuota": 5000, "MinQuota": 0}}} | 0-9:5000 | slice default: WorkerSpans: has no WorkerSpans entry and WorkerSpans has no default
            spans for resource table | {"default": {"a": {"GroupId": 1, "MaxQuota": {"cpu": 5}, "MinQuota": {"cpu": 1}}}} | default:5 | counts workers, but the quota table is in resources
            """)
    void rejectsMalformedTables(String what, String json, String spans, String expected) {
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> read(json, spans));
        assertTrue(e.getMessage().contains(expected), () -> what + ": expected '" + expected + "' in: " + e.getMessage());
        assertTrue(e.getMessage().contains("quota.json") || e.getMessage().startsWith("WorkerSpans"), e.getMessage());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            empty                  | ''                        | is empty; expected e.g. default:5000,0-9:15000
            no colon               | default=5000              | entry 'default=5000': is not slice:count
            bad slice              | noon:5                    | entry 'noon:5': is neither 'default' nor an hour range
            bad count              | default:lots              | count 'lots' is not a whole number
            negative count         | default:-5                | count must not be negative, got -5
            slice twice            | default:5,default:6       | slice default is given twice
            """)
    void rejectsMalformedWorkerSpans(String what, String text, String expected) {
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> WorkerSpans.parse(text));
        assertTrue(e.getMessage().contains(expected), () -> what + ": expected '" + expected + "' in: " + e.getMessage());
    }

    @Test
    void reportsEveryProblemOfATable() {
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> read("""
                {"default": {"a": {"GroupId": 1, "MaxQuota": 5, "MinQuota": 9}, "b": {"GroupId": 1, "MaxQuota": 5, "MinQuota": -1}},
                 "0-9": {}, "5-10": {}}
                """, null));
        assertEquals(4, e.problems().size(), e.getMessage());
    }

    /** A 12 KB WorkerSpans with a mistake in every entry once made a 13 MB error, repeating itself in every problem. */
    @Test
    void aLongWorkerSpansIsNotRepeatedWholeInEveryProblem() {
        String spans = "default:5000,0-9:\u202ex,".repeat(500);
        InvalidRequestException e = assertThrows(InvalidRequestException.class, () -> WorkerSpans.parse(spans));
        // 500 bad entries and 499 repeated slices: the first 20 named, the rest counted
        assertEquals(21, e.problems().size(), () -> e.problems().size() + " problems");
        assertTrue(e.getMessage().endsWith("and 979 more bad entries"), e.getMessage());
        assertTrue(e.getMessage().length() < 21 * 400, () -> e.getMessage().length() + " chars");
        assertTrue(e.problems().get(0).subject().endsWith("…\" (" + spans.length() + " chars)"), e.problems().get(0).subject());
        assertTrue(!e.getMessage().contains("\u202e"), "no raw bidi override reaches the terminal");
        assertTrue(e.getMessage().contains("entry '0-9:\\u202Ex': count '\\u202Ex' is not a whole number"), e.problems().get(1).toString());
    }
}
