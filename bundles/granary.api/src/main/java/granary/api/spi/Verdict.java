package granary.api.spi;

/**
 * The one result type of the SPI. Codes:
 * <ul>
 *   <li>{@code ALLOW} — go ahead, with at most {@link #slots()} slots ({@link #UNLIMITED} for no limit);</li>
 *   <li>{@code WAIT} — not now; the engine leaves the work waiting and tries again later;</li>
 *   <li>{@code REJECT} — never; only meaningful from a {@link SubmitFilter}, where the submission is
 *       refused with the reason. Elsewhere the engine treats it as {@code WAIT}.</li>
 * </ul>
 */
public record Verdict(Code code, int slots, Reason reason) {

    /** The verdict codes. */
    public enum Code { ALLOW, WAIT, REJECT }

    /** No limit on slots. */
    public static final int UNLIMITED = Integer.MAX_VALUE;

    /** Allow without limit. */
    public static final Verdict ALLOW = new Verdict(Code.ALLOW, UNLIMITED, null);

    /** Allow at most {@code slots} slots; 0 slots is the same as waiting without a reason. */
    public static Verdict allow(int slots) {
        return slots == UNLIMITED ? ALLOW : new Verdict(Code.ALLOW, Math.max(0, slots), null);
    }

    /** Allow at most {@code slots} slots, saying why not more (e.g. the quota left). */
    public static Verdict allow(int slots, Reason whyNotMore) {
        return new Verdict(Code.ALLOW, Math.max(0, slots), whyNotMore);
    }

    public static Verdict waitFor(Reason reason) {
        return new Verdict(Code.WAIT, 0, reason);
    }

    public static Verdict reject(Reason reason) {
        return new Verdict(Code.REJECT, 0, reason);
    }

    /** True if at least one slot is allowed. */
    public boolean allowed() {
        return code == Code.ALLOW && slots > 0;
    }
}
