package granary.api.model;

/**
 * One thing wrong with an input, kept as fields so that callers (console, HTTP, the why-not-scheduled
 * record) can read them, not only the text.
 *
 * @param subject what the problem is about, e.g. {@code node r1-n7}, {@code job j42 unit map}
 * @param field   the offending field, e.g. {@code slot.cpu}, {@code locality[2].target}
 * @param message what is wrong, in words, including limit and value where there are ones
 * @param limit   the limit that was broken, or null
 * @param value   the value that broke it, or null
 */
public record Problem(String subject, String field, String message, Long limit, Long value) {

    public static Problem of(String subject, String field, String message) {
        return new Problem(subject, field, message, null, null);
    }

    public static Problem of(String subject, String field, String message, long limit, long value) {
        return new Problem(subject, field, message, limit, value);
    }

    @Override
    public String toString() {
        return subject + ": " + field + ": " + message;
    }
}
