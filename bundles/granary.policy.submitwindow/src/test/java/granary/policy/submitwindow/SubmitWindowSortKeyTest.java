package granary.policy.submitwindow;

import java.util.List;

import granary.testkit.SortKeyContract;

import org.junit.jupiter.api.Test;

/** The sort key orders units exactly as {@code compare} does: {@link SortKeyContract}. */
class SubmitWindowSortKeyTest {

    @Test
    void keyOrderIsTheComparatorOrder() {
        SortKeyContract.assertKeyOrderIsCompareOrder(List.of(new SubmitWindowPolicy(), new SubmitWindowPolicy(1), new SubmitWindowPolicy(7_000)));
    }
}
