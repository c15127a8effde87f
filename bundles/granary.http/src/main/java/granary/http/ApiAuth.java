package granary.http;

import granary.protocol.link.Tokens;
import java.util.List;

/**
 * Who is calling, from {@code Authorization: Bearer <token>} (docs/api.md, "Authentication and
 * roles"): a token of {@code reader/NAME}, {@code operator/NAME} or {@code admin/NAME} under the
 * master's secret. A peer's token (an agent's, a job master's) proves an identity but grants no
 * role here.
 */
public final class ApiAuth {

    /** The caller: its identity and role. */
    public record Caller(String identity, ApiRole role) {
    }

    private final Tokens tokens;
    private final boolean openReads;

    /**
     * @param openReads whether reads need no token (a caller without one is {@code anonymous} with
     *                  the reader role); writes always need one
     */
    public ApiAuth(Tokens tokens, boolean openReads) {
        this.tokens = tokens;
        this.openReads = openReads;
    }

    /** The caller of a request, or a 401 problem. */
    public Caller caller(String authorization) {
        String token = Tokens.bearer(authorization);
        if (token == null) {
            if (openReads) {
                return new Caller("anonymous", ApiRole.READER);
            }
            throw new ApiException(401, "unauthenticated", "A token is needed",
                    "send Authorization: Bearer <token> (a master issues one with --issue-token=reader/NAME, operator/NAME or admin/NAME)",
                    List.of());
        }
        String identity = tokens.verifiedIdentity(token);
        if (identity == null) {
            throw new ApiException(401, "unauthenticated", "A token is needed", "the token is " + java.util.Objects.requireNonNullElse(tokens.refusal(token), "not valid for this master"), List.of());
        }
        ApiRole role = ApiRole.ofWire(identity.substring(0, identity.indexOf('/')));
        if (role == null) {
            throw new ApiException(403, "forbidden", "The token's role may not do this",
                    identity + " is a peer of the protocol, not a user of the API: use a token of reader/, operator/ or admin/",
                    List.of());
        }
        return new Caller(identity, role);
    }

    /** A 403 unless {@code caller} may do what {@code needed} may. */
    static void require(Caller caller, ApiRole needed, String what) {
        if (!caller.role().covers(needed)) {
            throw new ApiException(403, "forbidden", "The token's role may not do this",
                    what + " needs the " + needed.wire() + " role; " + caller.identity() + " has " + caller.role().wire(),
                    List.of());
        }
    }
}
