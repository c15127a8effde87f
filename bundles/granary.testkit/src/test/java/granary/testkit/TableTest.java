package granary.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

class TableTest {

    @Test
    void readsRowsByColumnNameSkippingSeparatorsCommentsAndBlankLines() {
        Table t = Table.parse("""
                # a comment
                | job | slots | gang | nodes  |
                |-----|-------|------|--------|

                | a   | 4     | yes  | n0, n1 |
                | b   | 1_000 | -    | -      |
                """);
        assertEquals(List.of("job", "slots", "gang", "nodes"), t.columns());
        assertEquals(2, t.rows().size());
        Table.Row a = t.rows().get(0);
        assertEquals("a", a.text("job"));
        assertEquals(4, a.integer("slots"));
        assertTrue(a.flag("gang"));
        assertEquals(List.of("n0", "n1"), a.list("nodes"));
        Table.Row b = t.rows().get(1);
        assertEquals(1000L, b.number("slots"));
        assertFalse(b.flag("gang"));
        assertTrue(b.isEmpty("nodes"));
        assertEquals("none", b.text("nodes", "none"));
        assertEquals(6, b.line());
    }

    @Test
    void namesTheLineOfAMalformedRow() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Table.parse("| a | b |\n| 1 |\n"));
        assertEquals("table line 2: 1 cells, the header has 2", e.getMessage());
        Table t = Table.parse("| a |\n| x |\n");
        assertEquals("table line 2: a 'x' is not a number",
                assertThrows(IllegalArgumentException.class, () -> t.rows().get(0).integer("a")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> t.rows().get(0).text("zz"));
        assertThrows(IllegalArgumentException.class, () -> Table.parse("just text"));
    }
}
