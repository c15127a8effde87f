package granary.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * A scrape in the Prometheus text format (0.0.4), parsed strictly enough to catch a malformed line:
 * every sample is {@code name{label="value",...} number}, every family has {@code # HELP} and
 * {@code # TYPE} before its samples. Samples are kept by name and sorted labels.
 */
public final class Exposition {

    private final Map<String, Double> samples = new LinkedHashMap<>();
    private final Map<String, String> types = new LinkedHashMap<>();
    private final Map<String, String> help = new LinkedHashMap<>();

    private Exposition() {
    }

    public static Exposition parse(String text) {
        Exposition e = new Exposition();
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            if (line.startsWith("# HELP ")) {
                String[] p = line.substring(7).split(" ", 2);
                e.help.put(p[0], p.length > 1 ? p[1] : "");
            } else if (line.startsWith("# TYPE ")) {
                String[] p = line.substring(7).split(" ");
                assertEquals(2, p.length, "TYPE line: " + line);
                e.types.put(p[0], p[1]);
            } else if (line.startsWith("#")) {
                continue;
            } else {
                e.sample(line);
            }
        }
        return e;
    }

    private void sample(String line) {
        int brace = line.indexOf('{');
        int space;
        String name;
        Map<String, String> labels = new TreeMap<>();
        if (brace >= 0 && brace < line.indexOf(' ')) {
            name = line.substring(0, brace);
            int i = brace + 1;
            while (line.charAt(i) != '}') {
                int eq = line.indexOf('=', i);
                String key = line.substring(i, eq);
                assertEquals('"', line.charAt(eq + 1), "label value quoted: " + line);
                StringBuilder value = new StringBuilder();
                int j = eq + 2;
                for (; line.charAt(j) != '"'; j++) {
                    char c = line.charAt(j);
                    if (c == '\\') {
                        char n = line.charAt(++j);
                        value.append(n == 'n' ? '\n' : n);
                    } else {
                        value.append(c);
                    }
                }
                labels.put(key, value.toString());
                i = j + 1;
                if (line.charAt(i) == ',') {
                    i++;
                }
            }
            space = i + 1;
        } else {
            space = line.indexOf(' ');
            name = line.substring(0, space);
        }
        assertTrue(name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*"), "metric name: " + line);
        assertTrue(family(name) != null, "sample before its # TYPE: " + line);
        String number = line.substring(space).trim().split(" ")[0];
        double v = switch (number) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(number);
        };
        assertTrue(samples.put(key(name, labels), v) == null, "duplicate sample: " + line);
    }

    /** The family a sample belongs to (its name, or its name less a histogram's or summary's suffix), or null. */
    private String family(String sample) {
        if (types.containsKey(sample)) {
            return sample;
        }
        for (String suffix : new String[] {"_total", "_bucket", "_count", "_sum", "_created"}) {
            if (sample.endsWith(suffix) && types.containsKey(sample.substring(0, sample.length() - suffix.length()))) {
                return sample.substring(0, sample.length() - suffix.length());
            }
        }
        return null;
    }

    private static String key(String name, Map<String, String> labels) {
        return name + new TreeMap<>(labels);
    }

    /** The sample's value, or null if there is none. {@code labels}: name, value, name, value, ... */
    public Double value(String name, String... labels) {
        Map<String, String> l = new TreeMap<>();
        for (int i = 0; i < labels.length; i += 2) {
            l.put(labels[i], labels[i + 1]);
        }
        return samples.get(key(name, l));
    }

    /** The sample's value; fails if it is missing. */
    public double get(String name, String... labels) {
        Double v = value(name, labels);
        assertNotNull(v, "no sample " + name + " " + String.join(",", labels) + " in\n" + samples.keySet());
        return v;
    }

    public String type(String family) {
        return types.get(family);
    }

    public String help(String family) {
        return help.get(family);
    }

    public Map<String, String> types() {
        return types;
    }
}
