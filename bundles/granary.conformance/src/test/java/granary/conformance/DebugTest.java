package granary.conformance;

import java.util.List;
import org.junit.jupiter.api.Test;

class DebugTest {
    @Test
    void run() {
        long seed = Long.getLong("seed", 499);
        List<Schedules.Fault> faults = Schedules.shrink(seed, Schedules.generate(seed));
        System.out.println("FAULTS " + faults);
        System.setProperty("granary.debug", "1");
        Cases.Outcome o = Schedules.run(seed, faults);
        o.violations().forEach(v -> System.out.println("V " + v));
    }
}
