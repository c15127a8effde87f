package granary.engine.cycle;

import java.util.Locale;

import granary.api.model.Resources;

/**
 * Resource amounts in an operator's words, for the reasons the engine writes: cpu in cores (the
 * model counts hundredths), memory in MiB, an extended resource by its name.
 */
final class Amounts {

    private Amounts() {
    }

    /** "2 cores", "1.5 cores", "4096 MiB", "2 gpu". */
    static String of(String resource, long amount) {
        return switch (resource) {
            case "cpu" -> amount % 100 == 0 ? amount / 100 + (amount == 100 ? " core" : " cores")
                    : String.format(Locale.ROOT, "%.2f", amount / 100.0).replaceAll("0$", "") + " cores";
            case "mem" -> amount + " MiB";
            default -> amount + " " + resource;
        };
    }

    /** "cpu", "memory", "gpu". */
    static String word(String resource) {
        return "mem".equals(resource) ? "memory" : resource;
    }

    /**
     * The resource {@code need} falls shortest of in {@code have} (the largest need / have), or null
     * if it has enough of every one.
     */
    static String binding(Resources need, Resources have) {
        String worst = worse(null, "cpu", need.cpu(), have.cpu(), need, have);
        worst = worse(worst, "mem", need.memMb(), have.memMb(), need, have);
        for (int i = 0; i < need.extendedCount(); i++) {
            String r = need.extendedName(i);
            worst = worse(worst, r, need.extendedValue(i), have.get(r), need, have);
        }
        return worst;
    }

    /** {@code r} if {@code need} of it is short of {@code have} and shorter than {@code worst}, else {@code worst}. */
    private static String worse(String worst, String r, long need, long have, Resources needs, Resources haves) {
        if (need <= Math.max(0, have)) {
            return worst;
        }
        return worst == null || ratio(need, have) > ratio(needs.get(worst), haves.get(worst)) ? r : worst;
    }

    private static double ratio(long need, long have) {
        return have <= 0 ? Double.MAX_VALUE : (double) need / have;
    }
}
