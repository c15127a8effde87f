package granary.api.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Echoed input never reaches a terminal raw, and never at full length. */
class TextTest {

    @Test
    void plainTextIsOnlyQuoted() {
        assertEquals("\"root.a-1 é ✓\"", Text.quote("root.a-1 é ✓"));
        assertEquals("root.a", Text.escape("root.a"));
        assertEquals("null", Text.quote(null));
    }

    @Test
    void controlsNewlinesEscapesNulAndBidiAreEscaped() {
        assertEquals("\"a\\nb\\r\\tc\"", Text.quote("a\nb\r\tc"));
        assertEquals("\"\\u001B[31mred\"", Text.quote("\u001b[31mred"));
        assertEquals("\"nul\\u0000\"", Text.quote("nul\0"));
        assertEquals("\"\\u202Eevil\\u2066x\\u2069\"", Text.quote("\u202eevil\u2066x\u2069"));
        assertEquals("\"say \\\"hi\\\" \\\\ bye\"", Text.quote("say \"hi\" \\ bye"));
    }

    @Test
    void longValuesAreCutWithTheirLength() {
        String spans = "default:5000,".repeat(1000);
        String q = Text.quote(spans);
        assertTrue(q.endsWith("…\" (13000 chars)"), q);
        assertEquals(Text.MAX_CHARS + 2 + "… (13000 chars)".length(), q.length(), q);
        assertTrue(Text.escape(spans).endsWith("… (13000 chars)"));
    }

    @Test
    void aCutDoesNotSplitASurrogatePair() {
        String s = "x".repeat(Text.MAX_CHARS - 1) + "\ud83d\ude00" + "tail";
        assertTrue(Text.escape(s).startsWith("x".repeat(Text.MAX_CHARS - 1) + "…"), Text.escape(s));
    }
}
