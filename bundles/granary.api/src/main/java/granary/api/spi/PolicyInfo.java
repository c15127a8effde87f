package granary.api.spi;

import java.util.List;

/**
 * An installed policy as the engine knows it.
 *
 * @param name     e.g. {@code fifo}
 * @param points   the extension points it implements, by id (e.g. {@code unit-order})
 * @param origin   where it comes from, e.g. {@code granary.policy.fifo 0.1.0}
 * @param selected chosen by the operator or the configuration
 * @param active   in effect now (selected, or the fallback of an exclusive point)
 */
public record PolicyInfo(String name, List<String> points, String origin, boolean selected, boolean active) {

    public PolicyInfo {
        points = List.copyOf(points);
    }
}
