package granary.sim.trace;

import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;

/** The {@code statuses} option: which task statuses of a trace are replayed (default all). */
final class Statuses {

    private Statuses() {
    }

    static Set<String> parse(TraceOptions o, Set<String> known) {
        Set<String> s = new HashSet<>();
        for (String part : o.text("statuses", String.join(",", known)).split(",")) {
            String p = part.trim();
            if (!known.contains(p)) {
                throw o.bad("statuses", "'" + p + "' is not a status; statuses: " + new TreeSet<>(known));
            }
            s.add(p);
        }
        return s;
    }
}
