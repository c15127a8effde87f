package granary.api.spi;

/**
 * Why a policy said no, with the limit and the observed value where there are ones, e.g.
 * {@code QUOTA, "group root.a", "max 5000 slots reached", 5000, 5000}.
 */
public record Reason(ReasonCode code, String subject, String message, long limit, long value) {

    public static Reason of(ReasonCode code, String subject, String message) {
        return new Reason(code, subject, message, -1, -1);
    }

    @Override
    public String toString() {
        return code + " " + subject + ": " + message;
    }
}
