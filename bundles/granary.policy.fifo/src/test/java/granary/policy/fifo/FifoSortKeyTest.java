package granary.policy.fifo;

import java.util.List;

import granary.testkit.SortKeyContract;

import org.junit.jupiter.api.Test;

/** The sort key orders units exactly as {@code compare} does: {@link SortKeyContract}. */
class FifoSortKeyTest {

    @Test
    void keyOrderIsTheComparatorOrder() {
        SortKeyContract.assertKeyOrderIsCompareOrder(List.of(new FifoPolicy(true), new FifoPolicy(false)));
    }
}
