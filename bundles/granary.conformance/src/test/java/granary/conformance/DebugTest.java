package granary.conformance;

import java.util.List;
import org.junit.jupiter.api.Test;

class DebugTest {
    @Test
    void run() {
        try (World w = Cases.cluster(7)) {
            w.faults(Schedules.LOSSY);
            w.run(2750);
            SimJobMaster jm = w.jobMasters.get("jm1");
            w.restartJobMaster("jm1");
            for (int i = 0; i < 40; i++) {
                w.run(250);
                System.out.println("T " + (w.now() - 1_000_000) + " ready=" + jm.ready() + " holdings=" + jm.holdings());
            }
        }
    }
}
