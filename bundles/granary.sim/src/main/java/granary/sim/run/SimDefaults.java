package granary.sim.run;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import granary.api.spi.ExtensionPoint;

/**
 * The simulator's defaults that name policies, read from its configuration
 * ({@code granary/sim/run/defaults.properties}), so that no class of the simulator names a policy:
 * the set a replay runs without {@code --policies}, and the fallback order of the policies that stand
 * in on a point a set leaves empty (after them, any installed policy that implements the point).
 */
public record SimDefaults(List<String> policies, List<String> fallback) {

    static final String RESOURCE = "defaults.properties";

    public SimDefaults {
        policies = List.copyOf(policies);
        fallback = List.copyOf(fallback);
    }

    /** The defaults the simulator ships with. */
    public static SimDefaults shipped() {
        Properties p = new Properties();
        try (InputStream in = SimDefaults.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("the simulator's " + RESOURCE + " is missing from its jar");
            }
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the simulator's " + RESOURCE + ": " + e.getMessage(), e);
        }
        return new SimDefaults(list(p.getProperty("policies", "")), list(p.getProperty("fallback", "")));
    }

    private static List<String> list(String commaSeparated) {
        return Arrays.stream(commaSeparated.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
    }

    /** The available policies in the order they are tried as a stand-in: the fallback's first, then the rest by name. */
    public List<String> standInOrder(PolicySource source) {
        List<String> order = new ArrayList<>();
        fallback.stream().filter(source.names()::contains).forEach(order::add);
        source.names().stream().filter(n -> !order.contains(n)).forEach(order::add);
        return order;
    }

    /**
     * The available policies that implement {@code point}, in {@link #standInOrder} (each is made and
     * given back to find out, as the engine would see it).
     */
    public List<String> implementing(PolicySource source, ExtensionPoint point) {
        List<String> out = new ArrayList<>();
        for (String name : standInOrder(source)) {
            PolicySource.Created c = source.create(name, Map.of());
            try {
                if (ExtensionPoint.of(c.policy()).contains(point)) {
                    out.add(name);
                }
            } finally {
                c.release().run();
            }
        }
        return out;
    }
}
