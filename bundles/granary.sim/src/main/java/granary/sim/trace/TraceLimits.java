package granary.sim.trace;

import java.util.Locale;

/**
 * The bounds every trace is held to, in one place: a time or a duration outside them is a broken
 * trace (a unit mix-up, e.g. microseconds read as seconds), not something to replay for ever. Each
 * reader refuses a value outside them with its row's {@code file:line:column: field N (name)} (JSON:
 * {@code file:line:column: $.path}), the limit and the value.
 *
 * <ul>
 *   <li>times (submit, create, start, end, deletion): at most {@value #MAX_TIME_S} s (10 years of 365
 *       days) after the trace's start; readers that clamp times before the start to 0 (Alibaba) accept
 *       as far before it;</li>
 *   <li>durations (run times): at most {@value #MAX_DURATION_S} s (one year);</li>
 *   <li>the replay span — the latest arrival + duration of any unit — at most {@value #MAX_SPAN_S} s;</li>
 *   <li>time-series samples of one run: at most {@value #MAX_SAMPLES}; a longer run samples less often
 *       (the interval is widened, with a note);</li>
 *   <li>a synthetic workload: at most {@value #MAX_SYNTHETIC_JOBS} jobs.</li>
 * </ul>
 */
public final class TraceLimits {

    /** Latest time in a trace, seconds from its start: 10 years. */
    public static final long MAX_TIME_S = 10L * 365 * 86_400;
    /** Longest duration: one year. */
    public static final long MAX_DURATION_S = 365L * 86_400;
    /** Latest end (arrival + duration) of any unit: 10 years. */
    public static final long MAX_SPAN_S = MAX_TIME_S;
    /** Most jobs of a synthetic workload. */
    public static final long MAX_SYNTHETIC_JOBS = 10_000_000;
    /** Most time-series samples per run. */
    public static final long MAX_SAMPLES = 100_000;

    private TraceLimits() {
    }

    /** Field {@code i} of {@code r}, a time of {@code seconds}: within 0..MAX_TIME_S (±MAX_TIME_S if negatives are clamped). */
    static void time(Row r, int i, long seconds, boolean negativeAllowed) {
        long min = negativeAllowed ? -MAX_TIME_S : 0;
        if (seconds < min || seconds > MAX_TIME_S) {
            throw r.bad(i, "time " + n(seconds) + " s is out of range " + n(min) + ".." + n(MAX_TIME_S) + " s (10 years)");
        }
    }

    /** A duration of {@code seconds} computed from field {@code i} (and others, named in {@code how}). */
    static void duration(Row r, int i, long seconds, String how) {
        if (seconds > MAX_DURATION_S) {
            throw r.bad(i, "duration " + how + " = " + n(seconds) + " s is above the limit of " + n(MAX_DURATION_S)
                    + " s (1 year)");
        }
    }

    /** The message for a unit ending after the span limit. */
    static String span(String job, String unit, long endMs) {
        return "job " + job + " unit " + unit + ": ends at " + n(endMs / 1000) + " s (arrival + duration), after the "
                + "replay span limit of " + n(MAX_SPAN_S) + " s (10 years)";
    }

    static String n(long v) {
        return String.format(Locale.ROOT, "%,d", v);
    }
}
