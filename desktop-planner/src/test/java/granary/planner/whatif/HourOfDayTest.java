package granary.planner.whatif;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The per-hour means the utilisation and group charts draw, and the group charts' scale. */
class HourOfDayTest {

    @Test
    void anIntervalCountsInEachHourForTheTimeItSpendsThereAndDaysFoldOntoOne() {
        HourOfDay h = new HourOfDay();
        h.add(3000, 7800, 1.0);                   // 600 s of hour 0, all of hour 1, 600 s of hour 2
        h.add(86_400 + 3600, 86_400 + 5400, 0.0); // the next day's hour 1, half of it
        h.add(90_000, 90_000, 5.0);               // an empty interval counts nowhere
        h.add(7800, 8400, Double.NaN);            // nor does a missing value
        List<Double> m = h.means();
        assertEquals(24, m.size());
        assertEquals(1.0, m.get(0), 1e-12);
        assertEquals(3600.0 / 5400, m.get(1), 1e-12, "hour 1: 3,600 s at 1 and 1,800 s at 0");
        assertEquals(1.0, m.get(2), 1e-12);
        assertTrue(m.subList(3, 24).stream().allMatch(v -> v.isNaN()), "no time in hours 3-23: " + m);
    }

    @Test
    void groupChartsScaleToARoundNumberAboveWhatWasHeld() {
        assertEquals(5000, WhatIfView.niceCeiling(4100), 1e-9);
        assertEquals(10_000, WhatIfView.niceCeiling(5100), 1e-9);
        assertEquals(200, WhatIfView.niceCeiling(125), 1e-9);
        assertEquals(1, WhatIfView.niceCeiling(1), 1e-9);
    }
}
