package granary.planner.table.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.util.List;

import org.junit.jupiter.api.Test;

import granary.codec.CodecException;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.QuotaTableCodec;
import granary.policy.quota.api.TimeSlice;

class DraftJsonTest {

    static final String ARTICLE = """
            { "default": { "group1": {"GroupId":1,"MaxQuota":5000,"MinQuota":3000},
                           "group2": {"GroupId":2,"MaxQuota":5000,"MinQuota":2000} },
              "0-9":     { "group1": {"GroupId":1,"MaxQuota":15000,"MinQuota":10000},
                           "group3": {"GroupId":3,"MaxQuota":3000,"MinQuota":3000} } }
            """;

    @Test
    void readsTheArticlesTableInFileOrderWithItsGroups() {
        Draft d = DraftJson.read(ARTICLE, "t.json", QuotaTableCodec.workerSpans("default:5000,0-9:15000"));
        assertEquals(List.of(TimeSlice.DEFAULT, TimeSlice.parse("0-9")), d.slices().stream().map(SliceRow::slice).toList());
        assertEquals(List.of("group1", "group3"), d.slice(TimeSlice.parse("0-9")).cells().stream().map(c -> c.group()).toList());
        assertEquals(List.of(new GroupRow("group1", 1), new GroupRow("group2", 2), new GroupRow("group3", 3)), d.groups());
        assertEquals(QuotaTableCodec.read(new StringReader(ARTICLE), "t.json", d.workerSpans()), QuotaTable.of(d.raw(), d.workerSpans()));
    }

    @Test
    void writesAValidTableExactlyAsTheCodecDoes() {
        Draft d = DraftJson.read(ARTICLE, "t.json", null);
        assertEquals(QuotaTableCodec.write(QuotaTableCodec.read(new StringReader(ARTICLE), "t.json", null)), DraftJson.write(d));
    }

    @Test
    void readsAndWritesATableThatBreaksTheRules() {
        String bad = "{\"default\": {\"g1\": {\"GroupId\": 1, \"MaxQuota\": 10, \"MinQuota\": 20}}, \"0-9\": {}, \"8-12\": {}}";
        assertThrows(CodecException.class, () -> QuotaTableCodec.read(new StringReader(bad), "bad.json", null));
        Draft d = DraftJson.read(bad, "bad.json", null);
        assertEquals(3, d.slices().size());
        Draft again = DraftJson.read(DraftJson.write(d), "again.json", null);
        assertEquals(d, again, "what is written reads back the same");
    }

    @Test
    void refusesWhatCannotBeADraftWithLineAndColumn() {
        CodecException e = assertThrows(CodecException.class, () -> DraftJson.read(
                "{\"default\": {},\n \"9-x\": {},\n \"0-9\": {\"g\": {\"GroupId\": 1, \"MaxQuota\": 1.5, \"Min\": 0}}}", "t.json", null));
        String all = e.describe();
        assertTrue(all.contains("t.json:2:2: $.9-x: "), all);
        assertTrue(all.contains("MaxQuota: expected a whole number"), all);
        assertTrue(all.contains("MinQuota: is missing"), all);
        assertTrue(all.contains("Min: unknown field"), all);
    }

    @Test
    void theSameSliceUnderTwoKeysIsRefused() {
        CodecException e = assertThrows(CodecException.class, () -> DraftJson.read("{\"0-9\": {}, \"00-9\": {}}", "t.json", null));
        assertTrue(e.describe().contains("is slice 0-9 again"), e.describe());
    }
}
