package granary.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;

import org.junit.jupiter.api.Test;

class DemoSettingsTest {

    @Test
    void everyBadSettingIsNamedWithItsValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new DemoSettings(0, 50, 6400, 262_144, -1, 0, 10, 5, 8, List.of("ok", "bad name"), 1, "demo"));
        assertEquals("demo settings: rooms must be at least 1, got 0; jobsPerSecond must be in [0, 1000], got -1.0; "
                + "maxRunningJobs must be at least 1, got 0; maxTaskMillis must be at least minTaskMillis (10), got 5; "
                + "group 'bad name' is not a valid name: use letters, digits, '.', '_', '-', ':' or '@' "
                + "(no spaces, at most 200 characters)", e.getMessage());
    }

    @Test
    void theDefaultsAreValid() {
        assertEquals(200, DemoSettings.DEFAULTS.nodeCount());
    }
}
