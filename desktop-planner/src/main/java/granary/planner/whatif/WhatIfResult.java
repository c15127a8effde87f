package granary.planner.whatif;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Both sides of a what-if: the same cut of the same trace on the same cluster, replayed once through
 * the draft and once through the table in force.
 *
 * @param trace      the trace file's name
 * @param jobs       jobs in the cut replayed
 * @param workerForm true if the tables count workers (amounts in slots), false for resources (cores)
 * @param notes      what a reader of the charts should know: refused jobs, policies the simulator added
 */
public record WhatIfResult(String trace, long jobs, boolean workerForm, RunSummary draft, RunSummary inForce,
                           List<String> notes) {

    public WhatIfResult {
        notes = List.copyOf(notes);
    }

    /** The unit of the per-group amounts. */
    public String unit() {
        return workerForm ? "slots" : "cores";
    }

    /** The groups of either side, the draft's first. */
    public Set<String> groups() {
        Set<String> all = new LinkedHashSet<>(draft.groups().keySet());
        all.addAll(inForce.groups().keySet());
        return all;
    }
}
