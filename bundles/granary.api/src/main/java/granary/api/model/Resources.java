package granary.api.model;

import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * An immutable resource vector: {@code cpu} in 1/100 cores (100 = one core), {@code memMb}, and any
 * number of named extended resources (for example {@code gpu}).
 *
 * <p>Extended resources are kept sorted by name with zero entries dropped, so two vectors with the
 * same amounts are {@link #equals equal} however they were built. Arithmetic may produce negative
 * amounts (a difference); the model's specs reject negative sizes where they are inputs.
 *
 * <p>Text form: {@code cpu=400,mem=8192,gpu=1} (see {@link #parse}).
 */
public final class Resources {

    /** The zero vector. */
    public static final Resources ZERO = new Resources(0, 0, new String[0], new long[0]);

    private static final String[] NO_NAMES = new String[0];
    private static final long[] NO_VALUES = new long[0];

    private final long cpu;
    private final long memMb;
    private final String[] names;   // sorted, no zero values
    private final long[] values;
    private int hash;

    private Resources(long cpu, long memMb, String[] names, long[] values) {
        this.cpu = cpu;
        this.memMb = memMb;
        this.names = names;
        this.values = values;
    }

    /**
     * The largest amount of one resource a node's capacity or a slot may have (2^40: 10^10 cores in
     * hundredths, an exbibyte of memory in MiB). Sums over a million such nodes stay exact.
     */
    public static final long MAX_AMOUNT = 1L << 40;

    /** cpu (1/100 cores) and memory (MiB) only. */
    public static Resources of(long cpu, long memMb) {
        if (cpu == 0 && memMb == 0) {
            return ZERO;
        }
        return new Resources(cpu, memMb, NO_NAMES, NO_VALUES);
    }

    /** cpu, memory and extended resources by name. */
    public static Resources of(long cpu, long memMb, Map<String, Long> extended) {
        TreeMap<String, Long> sorted = new TreeMap<>();
        for (Map.Entry<String, Long> e : extended.entrySet()) {
            String name = requireResourceName(e.getKey());
            if (e.getValue() != 0) {
                sorted.put(name, e.getValue());
            }
        }
        String[] n = new String[sorted.size()];
        long[] v = new long[sorted.size()];
        int i = 0;
        for (Map.Entry<String, Long> e : sorted.entrySet()) {
            n[i] = e.getKey();
            v[i++] = e.getValue();
        }
        return new Resources(cpu, memMb, n, v);
    }

    /** This vector with one extended resource set to {@code amount}. */
    public Resources with(String name, long amount) {
        if ("cpu".equals(name)) {
            return new Resources(amount, memMb, names, values);
        }
        if ("mem".equals(name) || "memMb".equals(name)) {
            return new Resources(cpu, amount, names, values);
        }
        TreeMap<String, Long> ext = new TreeMap<>(extended());
        ext.put(requireResourceName(name), amount);
        return of(cpu, memMb, ext);
    }

    public long cpu() {
        return cpu;
    }

    public long memMb() {
        return memMb;
    }

    /** The amount of a resource by name: {@code cpu}, {@code mem} (or {@code memMb}) or an extended name; 0 if absent. */
    public long get(String name) {
        if ("cpu".equals(name)) {
            return cpu;
        }
        if ("mem".equals(name) || "memMb".equals(name)) {
            return memMb;
        }
        int i = Arrays.binarySearch(names, name);
        return i >= 0 ? values[i] : 0;
    }

    /** The extended resources (never cpu or memory), sorted by name, zero amounts omitted. */
    public Map<String, Long> extended() {
        if (names.length == 0) {
            return Collections.emptyMap();
        }
        TreeMap<String, Long> m = new TreeMap<>();
        for (int i = 0; i < names.length; i++) {
            m.put(names[i], values[i]);
        }
        return Collections.unmodifiableMap(m);
    }

    /** Number of extended resources with a non-zero amount. */
    public int extendedCount() {
        return names.length;
    }

    /** Name of the i-th extended resource in name order. */
    public String extendedName(int i) {
        return names[i];
    }

    /** Amount of the i-th extended resource in name order. */
    public long extendedValue(int i) {
        return values[i];
    }

    public boolean isZero() {
        return cpu == 0 && memMb == 0 && names.length == 0;
    }

    /** True if no amount is negative. */
    public boolean isNonNegative() {
        if (cpu < 0 || memMb < 0) {
            return false;
        }
        for (long v : values) {
            if (v < 0) {
                return false;
            }
        }
        return true;
    }

    /** The first resource with a negative amount, or null. */
    public String firstNegative() {
        if (cpu < 0) {
            return "cpu";
        }
        if (memMb < 0) {
            return "mem";
        }
        for (int i = 0; i < names.length; i++) {
            if (values[i] < 0) {
                return names[i];
            }
        }
        return null;
    }

    public Resources plus(Resources o) {
        return combine(o, 1);
    }

    public Resources minus(Resources o) {
        return combine(o, -1);
    }

    /** This vector multiplied by {@code n}; an amount outside the range of a long is an {@link ArithmeticException}. */
    public Resources times(long n) {
        if (n == 1) {
            return this;
        }
        if (n == 0) {
            return ZERO;
        }
        long[] v = new long[values.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = Math.multiplyExact(values[i], n);
        }
        return new Resources(Math.multiplyExact(cpu, n), Math.multiplyExact(memMb, n), names, v);
    }

    /** True if every amount of this vector is at most the same amount of {@code available}. */
    public boolean fitsIn(Resources available) {
        if (cpu > available.cpu || memMb > available.memMb) {
            return false;
        }
        if (names.length == 0) {
            return true;
        }
        for (int i = 0; i < names.length; i++) {
            if (values[i] > available.get(names[i])) {
                return false;
            }
        }
        return true;
    }

    /**
     * How many copies of this (non-negative) vector fit in {@code available}: the largest n with
     * {@code n × this ≤ available}. A zero vector fits {@link Integer#MAX_VALUE} times.
     */
    public int copiesIn(Resources available) {
        long n = Integer.MAX_VALUE;
        n = Math.min(n, ratio(available.cpu, cpu));
        n = Math.min(n, ratio(available.memMb, memMb));
        for (int i = 0; i < names.length && n > 0; i++) {
            n = Math.min(n, ratio(available.get(names[i]), values[i]));
        }
        return (int) Math.max(0, n);
    }

    private static long ratio(long have, long need) {
        if (need <= 0) {
            return Integer.MAX_VALUE;
        }
        return have < 0 ? 0 : have / need;
    }

    /** Element-wise minimum. */
    public Resources min(Resources o) {
        return pick(o, true);
    }

    /** Element-wise maximum. */
    public Resources max(Resources o) {
        return pick(o, false);
    }

    /**
     * The dominant share of this vector in {@code total}: the largest {@code this[r] / total[r]}
     * over the resources this vector uses. A resource the total lacks counts as an infinite share.
     */
    public double dominantShare(Resources total) {
        double s = share(cpu, total.cpu);
        s = Math.max(s, share(memMb, total.memMb));
        for (int i = 0; i < names.length; i++) {
            s = Math.max(s, share(values[i], total.get(names[i])));
        }
        return s;
    }

    /**
     * The resource in which this vector takes the largest share of {@code total} (its dominant
     * resource; cpu on a tie): {@code cpu}, {@code mem} or an extended name.
     */
    public String dominantResource(Resources total) {
        String main = "cpu";
        double best = share(cpu, total.cpu);
        if (share(memMb, total.memMb) > best) {
            main = "mem";
            best = share(memMb, total.memMb);
        }
        for (int i = 0; i < names.length; i++) {
            double s = share(values[i], total.get(names[i]));
            if (s > best) {
                main = names[i];
                best = s;
            }
        }
        return main;
    }

    private static double share(long part, long whole) {
        if (part <= 0) {
            return 0;
        }
        return whole <= 0 ? Double.POSITIVE_INFINITY : (double) part / whole;
    }

    private Resources combine(Resources o, int sign) {
        long c = exact("cpu", cpu, o.cpu, sign);
        long m = exact("mem", memMb, o.memMb, sign);
        if (names.length == 0 && o.names.length == 0) {
            return of(c, m);
        }
        return mergeExtended(c, m, o, (name, a, b) -> exact(name, a, b, sign));
    }

    /**
     * {@code a + sign × b}, refused when it leaves the range of a long instead of wrapping to a
     * negative amount (two huge capacities must not add up to a small one).
     */
    private static long exact(String resource, long a, long b, int sign) {
        try {
            return sign > 0 ? Math.addExact(a, b) : Math.subtractExact(a, b);
        } catch (ArithmeticException e) {
            throw new ArithmeticException("resources: " + resource + " " + a + (sign > 0 ? " + " : " - ") + b
                    + " is outside the range of amounts (limit " + Long.MAX_VALUE + ")");
        }
    }

    private Resources pick(Resources o, boolean min) {
        long c = min ? Math.min(cpu, o.cpu) : Math.max(cpu, o.cpu);
        long m = min ? Math.min(memMb, o.memMb) : Math.max(memMb, o.memMb);
        if (names.length == 0 && o.names.length == 0) {
            return of(c, m);
        }
        return mergeExtended(c, m, o, min ? (name, a, b) -> Math.min(a, b) : (name, a, b) -> Math.max(a, b));
    }

    private interface LongOp {
        long apply(String name, long a, long b);
    }

    private Resources mergeExtended(long c, long m, Resources o, LongOp op) {
        String[] n = new String[names.length + o.names.length];
        long[] v = new long[n.length];
        int i = 0;
        int j = 0;
        int k = 0;
        while (i < names.length || j < o.names.length) {
            int cmp = i == names.length ? 1 : j == o.names.length ? -1 : names[i].compareTo(o.names[j]);
            long r;
            String name;
            if (cmp < 0) {
                name = names[i];
                r = op.apply(name, values[i++], 0);
            } else if (cmp > 0) {
                name = o.names[j];
                r = op.apply(name, 0, o.values[j++]);
            } else {
                name = names[i];
                r = op.apply(name, values[i++], o.values[j++]);
            }
            if (r != 0) {
                n[k] = name;
                v[k++] = r;
            }
        }
        return new Resources(c, m, Arrays.copyOf(n, k), Arrays.copyOf(v, k));
    }

    /**
     * Parses the text form {@code cpu=400,mem=8192,gpu=1}. Keys: {@code cpu}, {@code mem} (or
     * {@code memMb}), and extended names of letters, digits, '.', '_', '-' and '/'.
     *
     * @throws IllegalArgumentException naming the bad entry
     */
    public static Resources parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("resources: empty text, expected e.g. cpu=400,mem=8192");
        }
        long c = 0;
        long m = 0;
        TreeMap<String, Long> ext = new TreeMap<>();
        for (String part : text.split(",")) {
            String p = part.trim();
            int eq = p.indexOf('=');
            if (eq <= 0 || eq == p.length() - 1) {
                throw new IllegalArgumentException("resources '" + Text.escape(text) + "': entry '" + Text.escape(p) + "' is not name=amount");
            }
            String key = p.substring(0, eq).trim();
            long amount;
            try {
                amount = Long.parseLong(p.substring(eq + 1).trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("resources '" + Text.escape(text) + "': amount of '" + Text.escape(key) + "' is not an integer");
            }
            if ("cpu".equals(key)) {
                c = amount;
            } else if ("mem".equals(key) || "memMb".equals(key)) {
                m = amount;
            } else {
                ext.put(requireResourceName(key), amount);
            }
        }
        return of(c, m, ext);
    }

    private static String requireResourceName(String name) {
        if (name == null || name.isEmpty() || !name.chars().allMatch(ch ->
                Character.isLetterOrDigit(ch) || ch == '.' || ch == '_' || ch == '-' || ch == '/')) {
            throw new IllegalArgumentException("resource name '" + name
                    + "' is invalid: use letters, digits, '.', '_', '-' or '/'");
        }
        if ("cpu".equals(name) || "mem".equals(name) || "memMb".equals(name)) {
            throw new IllegalArgumentException("resource name '" + Text.escape(name) + "' is reserved for cpu/memory");
        }
        return name;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof Resources r)) {
            return false;
        }
        return cpu == r.cpu && memMb == r.memMb && Arrays.equals(names, r.names) && Arrays.equals(values, r.values);
    }

    @Override
    public int hashCode() {
        int h = hash;
        if (h == 0) {
            h = Long.hashCode(cpu) * 31 + Long.hashCode(memMb);
            h = h * 31 + Arrays.hashCode(names);
            h = h * 31 + Arrays.hashCode(values);
            hash = h;
        }
        return h;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("cpu=").append(cpu).append(",mem=").append(memMb);
        for (int i = 0; i < names.length; i++) {
            sb.append(',').append(names[i]).append('=').append(values[i]);
        }
        return sb.toString();
    }
}
