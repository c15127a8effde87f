package granary.http;

import granary.protocol.link.InFlight;
import java.util.List;

/**
 * How many API calls may be open at once (docs/security.md, "Limits"): per identity, per client
 * address, and for all operators together. The last is the operators' share of the HTTP server's
 * threads (an API call holds one while it is answered): whatever operators do, the rest stay free
 * for moving peers' bytes, and peers' work runs on threads of its own. Past a limit: 429 at once,
 * naming it. Streams are counted apart (they hold no thread). Thread-safe.
 */
final class CallLimits {

    /** Calls one identity may have open at once. */
    static final int PER_IDENTITY = 16;
    /** Calls one client address may have open at once, whatever tokens it uses. */
    static final int PER_ADDRESS = 32;
    /** Calls all operators together may have open: a third of Jetty's 200 threads. */
    static final int ALL = 64;
    private static final String EVERYONE = "";

    private final InFlight identities = new InFlight(PER_IDENTITY);
    private final InFlight addresses = new InFlight(PER_ADDRESS);
    private final InFlight all = new InFlight(ALL);

    /** Counts a call of {@code identity} from {@code address} in; the refusal if a limit is reached (nothing counted then). */
    ApiException enter(String identity, String address) {
        if (!identities.enter(identity)) {
            return tooMany(identity + " has " + PER_IDENTITY + " calls open, the most one identity may");
        }
        if (!addresses.enter(address)) {
            identities.leave(identity);
            return tooMany("address " + address + " has " + PER_ADDRESS + " calls open, the most one address may");
        }
        if (!all.enter(EVERYONE)) {
            identities.leave(identity);
            addresses.leave(address);
            return tooMany("operators have " + ALL + " calls open, the most the API takes at once");
        }
        return null;
    }

    /** A call that {@link #enter} counted in has ended. */
    void leave(String identity, String address) {
        all.leave(EVERYONE);
        addresses.leave(address);
        identities.leave(identity);
    }

    /** Calls open now: of {@code identity}, from {@code address}, of all operators. */
    int[] open(String identity, String address) {
        return new int[] {identities.open(identity), addresses.open(address), all.open(EVERYONE)};
    }

    static ApiException tooMany(String why) {
        return new ApiException(429, "too-many-requests", "Too many requests open", why + "; try again when one has ended",
                List.of()).header("Retry-After", "1");
    }
}
