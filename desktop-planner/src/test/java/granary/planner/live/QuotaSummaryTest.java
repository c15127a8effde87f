package granary.planner.live;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.ZoneOffset;
import java.time.ZonedDateTime;

import org.junit.jupiter.api.Test;

import granary.planner.master.MasterClient;

/** The next slice boundary, read from the table in force. */
class QuotaSummaryTest {

    private static final MasterClient.InForce TABLE = new MasterClient.InForce("{"
            + "\"default\": {\"g0\": {\"GroupId\": 1, \"MaxQuota\": 20000, \"MinQuota\": 8000}},"
            + "\"0-6\": {\"g0\": {\"GroupId\": 1, \"MaxQuota\": 30000, \"MinQuota\": 12000}},"
            + "\"22-24\": {\"g0\": {\"GroupId\": 1, \"MaxQuota\": 25000, \"MinQuota\": 10000}}}", "r1", null);

    private static ZonedDateTime at(int hour, int minute) {
        return ZonedDateTime.of(2026, 11, 26, hour, minute, 0, 0, ZoneOffset.UTC);
    }

    @Test
    void aRangeEndsWhereTheNextSliceBegins() {
        assertEquals("next boundary 06:00 (slice default)", QuotaSummary.nextBoundary("0-6", TABLE, at(3, 15)));
    }

    @Test
    void theDefaultSliceEndsAtTheNextRange() {
        assertEquals("next boundary 22:00 (slice 22-24)", QuotaSummary.nextBoundary("default", TABLE, at(8, 59)));
    }

    @Test
    void whenTheMastersClockDisagreesTheSliceItselfSaysWhenItEnds() {
        assertEquals("ends at 06:00 in the master's time zone", QuotaSummary.nextBoundary("0-6", TABLE, at(12, 0)));
    }
}
