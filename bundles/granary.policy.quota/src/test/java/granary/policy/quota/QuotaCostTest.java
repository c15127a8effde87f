package granary.policy.quota;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import granary.api.event.JobsSubmitted;
import granary.api.model.JobSpec;
import granary.api.spi.EngineView;
import granary.api.spi.UnitView;
import granary.api.spi.Verdict;
import granary.policy.fifo.FifoPolicy;
import granary.policy.quota.api.QuotaTable;
import granary.testkit.Clocks;
import granary.testkit.Jobs;
import granary.testkit.TestEngine;

/**
 * The quota policy's cost per decision does not grow with the backlog (docs/multi-tenancy.md, "Cost
 * per decision"): units its group's quota would refuse for their size are never offered to it one by
 * one. Counted in admission calls, not timed.
 */
class QuotaCostTest {

    /** The quota policy, counting how often the engine asks it about a unit. */
    static final class Counting extends QuotaPolicy {
        long admits;

        Counting(QuotaTable table) {
            super(QuotaOptions.DEFAULTS.withPreemption(false).withEmergent(QuotaOptions.EmergentMode.OFF)
                    .withLookahead(false, 60), table);
        }

        @Override
        public Verdict admit(UnitView unit, int wanted, EngineView view) {
            admits++;
            return super.admit(unit, wanted, view);
        }
    }

    @Test
    void aBacklogTheQuotaRefusesIsNotVisitedUnitByUnit() {
        for (int backlog : new int[] {100, 10_000}) {
            Counting quota = new Counting(QuotaBench.table("""
                    {"default": {"a": {"GroupId": 1, "MaxQuota": {"cpu": 1000, "mem": 1000000}, "MinQuota": {"cpu": 0, "mem": 0}}}}
                    """, null));
            TestEngine e = new TestEngine(Clocks.midnight(), List.of("fifo", "quota"), List.of(), new FifoPolicy(), quota);
            e.nodes("n", "r1", 4, 1000, 1_000_000);
            e.submit(JobSpec.of("held", "a", Jobs.unit("u", 100, 100, 9).build()));      // 9 of a's 10 cores
            List<JobSpec> big = new ArrayList<>();
            for (int i = 0; i < backlog; i++) {
                big.add(JobSpec.of("big" + i, "a", Jobs.unit("u", 200, 100, 1).build()));  // 2 cores: over a's room
            }
            big.add(JobSpec.of("small", "a", Jobs.unit("u", 100, 100, 1).build()));
            e.handle(new JobsSubmitted(big));
            assertEquals(1, e.granted("small/u"), "the one unit that fits a's room is placed");
            e.releaseSlots("held/u", 1);                                   // room for one more core in a
            quota.admits = 0;
            e.submit(JobSpec.of("late", "a", Jobs.unit("u", 100, 100, 1).build()));
            e.releaseSlots("held/u", 1);
            assertEquals(1, e.granted("late/u"));
            assertTrue(quota.admits < 20, backlog + " waiting units too big for the quota left: " + quota.admits
                    + " admission calls for two decisions");
        }
    }
}
