package granary.policy.sjf;

import java.util.List;

import granary.testkit.SortKeyContract;

import org.junit.jupiter.api.Test;

/** The sort key orders units exactly as {@code compare} does: {@link SortKeyContract}. */
class SjfSortKeyTest {

    @Test
    void keyOrderIsTheComparatorOrder() {
        SortKeyContract.assertKeyOrderIsCompareOrder(List.of(new SjfPolicy(true), new SjfPolicy(false)));
    }
}
