package granary.planner.master;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * What the planner plans, read from {@code planner.properties} beside this class: the document its
 * table editor edits (as a policy's declaration names it) and the policy a what-if replays with. No
 * class of the planner's client names a policy; these settings do (docs/planner.md, "What the planner
 * plans").
 *
 * @param tableDocument the document of the read resource the planner edits, {@code quota table}
 * @param whatIfPolicy  the policy a what-if configures with a table
 * @param tableOption   that policy's option naming the table's file
 * @param spansOption   that policy's option for the table's WorkerSpans
 * @param unitOrder     the unit order a what-if pairs with it unless told otherwise
 */
public record PlannerSettings(String tableDocument, String whatIfPolicy, String tableOption, String spansOption, String unitOrder) {

    private static final String FILE = "planner.properties";

    /** The settings the planner ships with, read once (a what-if and every client ask for them). */
    public static PlannerSettings defaults() {
        return Shipped.SETTINGS;
    }

    /** Read on first use, then kept: the file is in the planner's jar and does not change. */
    private static final class Shipped {
        static final PlannerSettings SETTINGS = read();
    }

    private static PlannerSettings read() {
        Properties p = new Properties();
        try (InputStream in = PlannerSettings.class.getResourceAsStream(FILE)) {
            if (in == null) {
                throw new IllegalStateException("the planner's " + FILE + " is missing from its jar");
            }
            p.load(new InputStreamReader(in, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("the planner's " + FILE + " does not read", e);
        }
        return new PlannerSettings(required(p, "table.document"), required(p, "whatif.policy"),
                required(p, "whatif.table-option"), required(p, "whatif.spans-option"), required(p, "whatif.unit-order"));
    }

    private static String required(Properties p, String key) {
        String v = p.getProperty(key);
        if (v == null || v.isBlank()) {
            throw new IllegalStateException("the planner's " + FILE + " has no " + key);
        }
        return v.trim();
    }
}
