package granary.planner.table.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import granary.policy.quota.api.TimeSlice;

class HoursTest {

    private static TimeSlice s(String key) {
        return TimeSlice.parse(key);
    }

    @Test
    void hoursPastMidnightOrBeforeZeroWrap() {
        assertEquals(s("22-2"), Hours.between(22, 26));
        assertEquals(s("22-2"), Hours.between(26, 22));
        assertEquals(s("22-2"), Hours.between(-2, 2));
        assertEquals(s("3-9"), Hours.between(9, 3));
        assertEquals(s("20-24"), Hours.between(20, 24));
        assertEquals(s("0-24"), Hours.between(0, 30), "a whole day from midnight");
        assertEquals(s("5-4"), Hours.between(5, 40), "a whole day not from midnight is cut to 23 hours");
    }

    @Test
    void lengthCountsWrappedHours() {
        assertEquals(9, Hours.length(s("0-9")));
        assertEquals(8, Hours.length(s("22-6")));
        assertEquals(24, Hours.length(s("0-24")));
    }

    @Test
    void movingAnEdgeKeepsTheOtherAndNeverEmptiesTheSlice() {
        assertEquals(s("0-12"), Hours.moveEnd(s("0-9"), 3));
        assertEquals(s("20-2"), Hours.moveEnd(s("20-24"), 2), "past midnight");
        assertEquals(s("20-21"), Hours.moveEnd(s("20-24"), -10), "at least one hour");
        assertEquals(s("22-9"), Hours.moveStart(s("0-9"), -2), "before midnight");
        assertEquals(s("8-9"), Hours.moveStart(s("0-9"), 12), "at least one hour");
        assertEquals(s("2-6"), Hours.moveStart(s("22-6"), 4));
    }
}
