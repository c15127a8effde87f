package granary.conformance;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** A debugging aid, off unless asked: {@code -Dgranary.case=ID} (or {@code -Dgranary.seed=N}) writes that run's whole log to target/case-trace.txt. */
class TraceOneCase {

    @Test
    void writesTheTraceOfOneRun() throws Exception {
        String id = System.getProperty("granary.case");
        String seed = System.getProperty("granary.seed");
        Assumptions.assumeTrue(id != null || seed != null, "set -Dgranary.case=ID or -Dgranary.seed=N");
        System.setProperty("granary.trace", "all");
        Cases.Outcome o = id != null ? Cases.run(Cases.all().stream().filter(c -> c.id().equals(id)).findFirst().orElseThrow(), 42)
                : "none".equals(System.getProperty("granary.faults")) ? Schedules.run(Long.parseLong(seed), java.util.List.of())
                : "minimal".equals(System.getProperty("granary.faults"))
                ? Schedules.run(Long.parseLong(seed), Schedules.shrink(Long.parseLong(seed), Schedules.generate(Long.parseLong(seed))))
                : Schedules.run(Long.parseLong(seed));
        StringBuilder b = new StringBuilder(o.id() + " " + o.title() + " (" + o.injected() + ")\n");
        o.violations().forEach(v -> b.append("VIOLATION ").append(v).append('\n'));
        o.log().forEach(l -> b.append(l).append('\n'));
        b.append(o.counters()).append('\n');
        Files.writeString(Path.of("target/case-trace.txt"), b);
    }
}
