package granary.console;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import granary.api.model.Resources;
import granary.api.spi.EngineView;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;

/** Small immutable rows the commands read from the engine (on its thread) and then format. */
final class Rows {

    private Rows() {
    }

    record NodeRow(String name, String room, Resources capacity, Resources free, int units, boolean blacklisted,
                   Map<String, String> labels) {
    }

    record UnitRow(String name, int granted, int desired, int priority, String kind, String waitReason) {
    }

    record JobRow(String id, String group, String user, List<UnitRow> units) {
        // long sums of int slots: a job of many large units never prints a wrapped, negative total
        long granted() {
            return units.stream().mapToLong(UnitRow::granted).sum();
        }

        long desired() {
            return units.stream().mapToLong(UnitRow::desired).sum();
        }
    }

    static List<NodeRow> nodes(EngineView v) {
        List<NodeRow> rows = new ArrayList<>();
        for (NodeView n : v.cluster().nodes()) {
            rows.add(new NodeRow(n.name(), n.room(), n.capacity(), n.free(), n.allocations().size(), n.blacklisted(),
                    new TreeMap<>(n.labels())));
        }
        return rows;
    }

    static List<JobRow> jobs(EngineView v) {
        List<JobRow> rows = new ArrayList<>();
        for (JobView j : v.jobs()) {
            List<UnitRow> units = new ArrayList<>();
            for (UnitView u : j.units()) {
                if (u.live()) {
                    units.add(new UnitRow(u.spec().name(), u.granted(), u.desired(), u.priority(), u.kind().name(),
                            u.waitReason() == null ? null : u.waitReason().toString()));
                }
            }
            rows.add(new JobRow(j.id(), j.group(), j.user(), units));
        }
        return rows;
    }

    static long slotsHeld(EngineView v, String job) {
        JobView j = v.job(job);
        return j == null ? -1 : j.units().stream().mapToLong(UnitView::granted).sum();
    }
}
