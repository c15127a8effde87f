package granary.api.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

class ResourcesTest {

    private static final Resources GPU_SLOT = Resources.of(100, 1024, Map.of("gpu", 1L));

    @Test
    void textFormRoundTripsAndZeroExtendedAmountsVanish() {
        assertEquals(GPU_SLOT, Resources.parse("cpu=100,mem=1024,gpu=1"));
        assertEquals(GPU_SLOT, Resources.parse(GPU_SLOT.toString()));
        assertEquals(Resources.of(100, 1024), Resources.of(100, 1024, Map.of("gpu", 0L)));
        assertEquals(Resources.of(5, 7), Resources.parse("memMb=7, cpu=5"));
        assertEquals(Resources.ZERO, Resources.of(0, 0));
    }

    @Test
    void arithmeticMergesExtendedResources() {
        Resources node = Resources.of(400, 4096, Map.of("gpu", 2L, "fpga", 1L));
        assertEquals(Resources.of(300, 3072, Map.of("gpu", 1L, "fpga", 1L)), node.minus(GPU_SLOT));
        assertEquals(node, node.minus(GPU_SLOT).plus(GPU_SLOT));
        assertEquals(Resources.of(300, 3072, Map.of("gpu", 3L)), GPU_SLOT.times(3));
        assertEquals(Resources.of(100, 1024), GPU_SLOT.min(Resources.of(400, 4096)));
        assertEquals("cpu", Resources.ZERO.minus(GPU_SLOT).firstNegative());
        assertFalse(Resources.ZERO.minus(GPU_SLOT).isNonNegative());
    }

    @Test
    void fitAndCopies() {
        Resources node = Resources.of(400, 4096, Map.of("gpu", 2L));
        assertTrue(GPU_SLOT.fitsIn(node));
        assertEquals(2, GPU_SLOT.copiesIn(node));                       // gpu binds
        assertEquals(4, Resources.of(100, 1024).copiesIn(node));
        assertFalse(GPU_SLOT.fitsIn(Resources.of(400, 4096)));          // no gpu at all
        assertEquals(0, GPU_SLOT.copiesIn(Resources.of(400, 4096)));
        assertEquals(0, GPU_SLOT.copiesIn(Resources.of(-5, 4096, Map.of("gpu", 2L))));
    }

    @Test
    void dominantShareAndResource() {
        Resources cluster = Resources.of(1000, 10_000, Map.of("gpu", 4L));
        assertEquals(0.25, GPU_SLOT.dominantShare(cluster), 1e-9);
        assertEquals("gpu", GPU_SLOT.dominantResource(cluster));
        assertEquals("mem", Resources.of(100, 5000).dominantResource(cluster));
        assertEquals("cpu", Resources.of(500, 5000).dominantResource(cluster));   // a tie goes to cpu
        assertEquals(Double.POSITIVE_INFINITY, GPU_SLOT.dominantShare(Resources.of(1000, 10_000)));
    }

    @Test
    void badTextAndNamesAreRefusedByName() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Resources.parse("cpu=1,gpu"))
                .getMessage().contains("entry 'gpu' is not name=amount"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Resources.parse(""))
                .getMessage().contains("empty text"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Resources.of(1, 1, Map.of("cpu", 1L)))
                .getMessage().contains("reserved"));
    }

    @Test
    void sumsOutsideTheRangeOfALongAreRefusedNotWrapped() {
        Resources huge = Resources.of(Long.MAX_VALUE, 1);
        ArithmeticException e = assertThrows(ArithmeticException.class, () -> huge.plus(Resources.of(1, 1)));
        assertEquals("resources: cpu 9223372036854775807 + 1 is outside the range of amounts (limit 9223372036854775807)",
                e.getMessage());
        assertThrows(ArithmeticException.class, () -> Resources.of(1, Long.MIN_VALUE).minus(Resources.of(0, 1)));
        Resources gpus = Resources.of(0, 0, Map.of("gpu", Long.MAX_VALUE - 1));
        ArithmeticException ext = assertThrows(ArithmeticException.class, () -> gpus.plus(gpus));
        assertTrue(ext.getMessage().startsWith("resources: gpu "), ext.getMessage());
        assertThrows(ArithmeticException.class, () -> huge.times(2));
        assertEquals(Resources.of(Long.MAX_VALUE, 2), Resources.of(Long.MAX_VALUE - 1, 1).plus(Resources.of(1, 1)));
    }
}
