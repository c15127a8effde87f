package granary.sim.trace;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import granary.api.model.InvalidRequestException;

/**
 * A seeded random distribution of the synthetic workload, written as text:
 * {@code const:V}, {@code uniform:A:B} (A ≤ x ≤ B), {@code exp:MEAN}, {@code lognormal:MEDIAN:SIGMA},
 * {@code choice:a,b,c} (each equally likely; {@code a*3} weighs an entry 3 times).
 */
public final class Distribution {

    private enum Kind { CONST, UNIFORM, EXP, LOGNORMAL, CHOICE }

    private final Kind kind;
    private final double a;
    private final double b;
    private final List<Double> choices;
    private final String text;

    private Distribution(Kind kind, double a, double b, List<Double> choices, String text) {
        this.kind = kind;
        this.a = a;
        this.b = b;
        this.choices = choices;
        this.text = text;
    }

    public static Distribution parse(String subject, String option, String text) {
        String t = text.trim();
        String[] p = t.split(":", -1);
        try {
            Distribution d = switch (p[0]) {
                case "const" -> p.length == 2 ? new Distribution(Kind.CONST, num(p[1]), 0, null, t) : null;
                case "uniform" -> p.length == 3 ? new Distribution(Kind.UNIFORM, num(p[1]), num(p[2]), null, t) : null;
                case "exp" -> p.length == 2 ? new Distribution(Kind.EXP, num(p[1]), 0, null, t) : null;
                case "lognormal" -> p.length == 3 ? new Distribution(Kind.LOGNORMAL, num(p[1]), num(p[2]), null, t) : null;
                case "choice" -> p.length == 2 ? new Distribution(Kind.CHOICE, 0, 0, choices(p[1]), t) : null;
                default -> null;
            };
            if (d != null && d.valid()) {
                return d;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new InvalidRequestException(subject, option, "'" + t + "' is not a distribution: use const:V, uniform:A:B "
                + "(A <= B), exp:MEAN, lognormal:MEDIAN:SIGMA or choice:a,b,c with numbers not below 0");
    }

    private static double num(String s) {
        return Double.parseDouble(s.trim());
    }

    private static List<Double> choices(String s) {
        List<Double> out = new ArrayList<>();
        for (String part : s.split(",")) {
            String[] w = part.split("\\*");
            int times = w.length == 2 ? Integer.parseInt(w[1].trim()) : 1;
            for (int i = 0; i < times; i++) {
                out.add(num(w[0]));
            }
        }
        return out;
    }

    private boolean valid() {
        return switch (kind) {
            case CONST, EXP -> a >= 0;
            case UNIFORM -> a >= 0 && a <= b;
            case LOGNORMAL -> a > 0 && b >= 0;
            case CHOICE -> !choices.isEmpty() && choices.stream().allMatch(c -> c >= 0);
        };
    }

    /** A sample, not below 0. */
    public double sample(Random r) {
        return switch (kind) {
            case CONST -> a;
            case UNIFORM -> a + r.nextDouble() * (b - a);
            case EXP -> -a * Math.log(1 - r.nextDouble());
            case LOGNORMAL -> a * Math.exp(b * r.nextGaussian());
            case CHOICE -> choices.get(r.nextInt(choices.size()));
        };
    }

    /** A whole sample: uniform draws whole numbers A..B each equally likely; others are rounded. */
    public long sampleLong(Random r) {
        if (kind == Kind.UNIFORM) {
            long lo = (long) Math.ceil(a);
            long hi = (long) Math.floor(b);
            return hi < lo ? lo : lo + (long) Math.floor(r.nextDouble() * (hi - lo + 1));
        }
        return Math.round(sample(r));
    }

    @Override
    public String toString() {
        return text;
    }
}
