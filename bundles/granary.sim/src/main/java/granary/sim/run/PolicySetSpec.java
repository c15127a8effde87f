package granary.sim.run;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import granary.api.model.InvalidRequestException;
import granary.api.model.Names;

/**
 * One policy set of a replay: policies composed with {@code ,}, each with options as
 * {@code name:key=value:key=value}, e.g. {@code quota:preemption=false,submitwindow:windowMillis=2000}.
 * Several sets to compare are separated by {@code |}: {@code fifo|fair|quota,submitwindow}.
 *
 * @param label the set as written, e.g. {@code quota,submitwindow}
 */
public record PolicySetSpec(String label, List<Ref> policies) {

    /** One policy of a set, with its options as text. */
    public record Ref(String name, Map<String, String> options) {
        public Ref {
            options = Map.copyOf(options);
        }
    }

    public PolicySetSpec {
        policies = List.copyOf(policies);
    }

    /** Parses {@code set|set|...}. */
    public static List<PolicySetSpec> parseAll(String text) {
        List<PolicySetSpec> sets = new ArrayList<>();
        for (String s : text.split("\\|", -1)) {
            sets.add(parse(s));
        }
        return sets;
    }

    /** Parses one set {@code a,b:key=value}. */
    public static PolicySetSpec parse(String text) {
        String t = text.trim();
        if (t.isEmpty()) {
            throw new InvalidRequestException("--policies", "set", "a policy set is empty (check for '||' or a '|' at an end)");
        }
        List<Ref> refs = new ArrayList<>();
        for (String p : t.split(",")) {
            refs.add(ref(t, p.trim()));
        }
        return new PolicySetSpec(t, refs);
    }

    private static Ref ref(String set, String text) {
        String[] parts = text.split(":");
        String name = parts[0].trim();
        if (!Names.isValid(name) || name.contains(":")) {
            throw new InvalidRequestException("--policies " + set, "name", "'" + name + "' is not a policy name");
        }
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++) {
            int eq = parts[i].indexOf('=');
            if (eq <= 0) {
                throw new InvalidRequestException("--policies " + set, name, "option '" + parts[i]
                        + "' is not key=value (write name:key=value:key2=value2)");
            }
            options.put(parts[i].substring(0, eq).trim(), parts[i].substring(eq + 1).trim());
        }
        return new Ref(name, options);
    }
}
