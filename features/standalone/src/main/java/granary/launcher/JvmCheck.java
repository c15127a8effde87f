package granary.launcher;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Optional;

/**
 * What the JVM chose on its own that a master under load would pay for (docs/operations.md, "The
 * master's JVM"): on one CPU or under 1,792 MB the JVM picks the serial collector, whose full
 * collections stop a master with thousands of agents for up to a second.
 */
final class JvmCheck {

    /** The serial collector's old generation, as the JVM names it to management beans. */
    static final String SERIAL_OLD = "MarkSweepCompact";

    private JvmCheck() {
    }

    /** The warning for a master running under collectors named {@code collectors}, if any. */
    static Optional<String> collectorWarning(List<String> collectors) {
        if (!collectors.contains(SERIAL_OLD)) {
            return Optional.empty();
        }
        return Optional.of("the JVM runs the serial garbage collector (its choice on one CPU or under 1,792 MB of memory):"
                + " a master with thousands of agents then stops for up to a second at a time; start it with"
                + " -XX:+UseParallelGC (or -XX:+UseG1GC) and -Xms as large as -Xmx (docs/operations.md, \"The master's JVM\")");
    }

    /** The names of this JVM's collectors. */
    static List<String> collectors() {
        return ManagementFactory.getGarbageCollectorMXBeans().stream().map(GarbageCollectorMXBean::getName).toList();
    }
}
