package granary.protocol.link;

import granary.api.model.Problem;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import java.net.URI;
import java.util.List;

/**
 * What a master that does not lead (a standby under high availability) answers to every protocol
 * call: {@value #STATUS} (Misdirected Request) with the leader's URL in header {@value #LEADER_HEADER}
 * and in the problem's text, or 503 while no leader is known. The body is an ack envelope of
 * incarnation 0 (a standby has none: it holds no session). A {@link Link} follows the header.
 */
public final class Standby {

    /** The status of a standby's refusal when it knows the leader. */
    public static final int STATUS = 421;

    /** The header naming the leader's base URL. */
    public static final String LEADER_HEADER = "Granary-Leader";

    private Standby() {
    }

    /**
     * The refusal of master {@code name}, a standby, to serve; {@code leader} null if no leader is
     * known yet (503: a peer tries again, or another master of its list).
     */
    public static Reply refusal(String name, URI self, URI leader) {
        Sender me = new Sender(Role.MASTER, name);
        String text = leader == null
                ? "master " + self + " is a standby and no leader is elected yet; try again shortly"
                : "master " + self + " is a standby and does not serve the protocol; the leader is " + leader;
        Ack ack = Ack.refused(0, List.of(Problem.of("master " + name, "$", text)));
        byte[] body = new WireCodec(Role.MASTER).encode(Envelope.of(me, 0, 0, ack));
        return new Reply(leader == null ? 503 : STATUS, body);
    }
}
