package granary.metrics;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Who may scrape: anyone when no token is configured (metrics are read-only, and Prometheus usually
 * scrapes without credentials), else only a request with {@code Authorization: Bearer <token>}. The
 * comparison takes the same time however much of the token matches.
 */
public final class ScrapeAccess {

    private final byte[] expected;

    /** @param token the token a scraper must send; null or blank: open */
    public ScrapeAccess(String token) {
        this.expected = token == null || token.isBlank() ? null : ("Bearer " + token.trim()).getBytes(StandardCharsets.UTF_8);
    }

    /** True if no token is required. */
    public boolean open() {
        return expected == null;
    }

    /** Whether a request with this {@code Authorization} header (null if none) may scrape. */
    public boolean permits(String authorization) {
        if (expected == null) {
            return true;
        }
        return authorization != null
                && MessageDigest.isEqual(expected, authorization.trim().getBytes(StandardCharsets.UTF_8));
    }
}
