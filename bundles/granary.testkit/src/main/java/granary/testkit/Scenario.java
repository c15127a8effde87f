package granary.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.api.spi.Reason;
import granary.api.spi.UnitView;

/**
 * Scenario tables with fixed column names, so that a policy's tests are mostly data: nodes and jobs
 * in, grants, placements and reasons out. Columns in brackets are optional.
 *
 * <pre>
 * nodes:  | node | [room] | cpu | mem | [labels: k=v, k=v] |
 * jobs:   | job | [group] | [unit] | slots | [cpu] | [mem] | [priority] | [gang: yes/no] |
 *         (one row per unit; rows of one job follow each other; unit "u", 100 cpu, 100 MiB, priority 0 by default)
 * expect: | unit | [granted] | [waiting] | [placement: n0:2, n1:1] | [reason: a ReasonCode, or - for none] |
 * </pre>
 */
public final class Scenario {

    private Scenario() {
    }

    /** The nodes of a nodes table. */
    public static List<NodeSpec> nodes(String table) {
        List<NodeSpec> out = new ArrayList<>();
        for (Table.Row r : Table.parse(table).rows()) {
            Map<String, String> labels = new TreeMap<>();
            if (r.has("labels")) {
                for (String kv : r.list("labels")) {
                    int eq = kv.indexOf('=');
                    labels.put(kv.substring(0, eq).strip(), kv.substring(eq + 1).strip());
                }
            }
            out.add(new NodeSpec(r.text("node"), r.has("room") ? r.text("room", Clusters.ROOM) : Clusters.ROOM,
                    Resources.of(r.number("cpu"), r.number("mem")), labels));
        }
        return out;
    }

    /** The jobs of a jobs table, in the order of their first rows. */
    public static List<JobSpec> jobs(String table) {
        Map<String, Jobs.JobBuilder> jobs = new LinkedHashMap<>();
        for (Table.Row r : Table.parse(table).rows()) {
            Jobs.JobBuilder j = jobs.computeIfAbsent(r.text("job"), Jobs::job);
            if (r.has("group") && !r.isEmpty("group")) {
                j.group(r.text("group"));
            }
            boolean gang = r.has("gang") && r.flag("gang");
            if (gang) {
                j.gang();
            }
            UnitSpec.Builder u = Jobs.unit(optional(r, "unit", "u"), optionalNumber(r, "cpu", 100),
                    optionalNumber(r, "mem", 100), r.integer("slots"));
            u.priority((int) optionalNumber(r, "priority", 0)).allOrNothing(gang);
            j.unit(u.build());
        }
        return jobs.values().stream().map(Jobs.JobBuilder::build).toList();
    }

    /** Adds the nodes, then submits the jobs a millisecond apart (so arrival order is row order). */
    public static TestEngine load(TestEngine e, String nodes, String jobs) {
        e.nodes(nodes(nodes));
        for (JobSpec j : jobs(jobs)) {
            e.clock.advance(1);
            e.submit(j);
        }
        return e;
    }

    /** Checks every row of an expect table against the engine (only the columns the table has). */
    public static void check(TestEngine e, String table) {
        for (Table.Row r : Table.parse(table).rows()) {
            String unit = r.text("unit");
            UnitView u = e.unit(unit);
            assertNotNull(u, r + ": no unit " + unit);
            if (r.has("granted")) {
                assertEquals(r.integer("granted"), u.granted(), r + ": granted");
            }
            if (r.has("waiting")) {
                assertEquals(r.integer("waiting"), u.remaining(), r + ": waiting");
            }
            if (r.has("placement")) {
                Map<String, Integer> expected = new TreeMap<>();
                for (String p : r.list("placement")) {
                    int colon = p.indexOf(':');
                    expected.put(p.substring(0, colon).strip(), Integer.parseInt(p.substring(colon + 1).strip()));
                }
                assertEquals(expected, new TreeMap<>(u.allocations()), r + ": placement");
            }
            if (r.has("reason")) {
                Reason why = u.waitReason();
                assertEquals(r.text("reason"), why == null ? "" : why.code().name(), r + ": reason " + why);
            }
        }
    }

    private static String optional(Table.Row r, String column, String otherwise) {
        return r.has(column) ? r.text(column, otherwise) : otherwise;
    }

    private static long optionalNumber(Table.Row r, String column, long otherwise) {
        return r.has(column) && !r.isEmpty(column) ? r.number(column) : otherwise;
    }
}
