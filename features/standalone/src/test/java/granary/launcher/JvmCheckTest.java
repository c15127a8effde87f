package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class JvmCheckTest {

    @Test
    void theSerialCollectorIsWarnedAboutWithWhatToDo() {
        String w = JvmCheck.collectorWarning(List.of("Copy", "MarkSweepCompact")).orElseThrow();
        assertTrue(w.contains("serial garbage collector") && w.contains("-XX:+UseParallelGC") && w.contains("-Xms"), w);
    }

    @Test
    void theOtherCollectorsAreNot() {
        assertFalse(JvmCheck.collectorWarning(List.of("G1 Young Generation", "G1 Old Generation")).isPresent());
        assertFalse(JvmCheck.collectorWarning(List.of("PS Scavenge", "PS MarkSweep")).isPresent());
        assertFalse(JvmCheck.collectorWarning(List.of("ZGC Cycles", "ZGC Pauses")).isPresent());
    }

    @Test
    void thisJvmsCollectorsAreRead() {
        assertFalse(JvmCheck.collectors().isEmpty());
    }
}
