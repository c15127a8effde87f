package granary.metrics;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ScrapeAccessTest {

    @Test
    void noTokenIsOpen() {
        ScrapeAccess a = new ScrapeAccess("");
        assertTrue(a.open());
        assertTrue(a.permits(null));
        assertTrue(a.permits("Bearer anything"));
        assertTrue(new ScrapeAccess(null).open());
    }

    @Test
    void aTokenIsRequiredAsABearerToken() {
        ScrapeAccess a = new ScrapeAccess("s3cret");
        assertFalse(a.open());
        assertTrue(a.permits("Bearer s3cret"));
        assertFalse(a.permits(null));
        assertFalse(a.permits(""));
        assertFalse(a.permits("s3cret"));
        assertFalse(a.permits("Bearer s3cre"));
        assertFalse(a.permits("Bearer s3cret2"));
        assertFalse(a.permits("Basic czNjcmV0"));
    }
}
