package granary.master;

import granary.protocol.Envelope;
import granary.protocol.Message;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.link.PlanPass;
import granary.protocol.link.Reply;
import granary.protocol.link.Tokens;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the master sends its peers: each peer's next cap or hint built from its mirror when its
 * poll asks, and the parked polls answered once at the end of a turn with everything it changed
 * (docs/protocol.md, "Transport"); the plan passes and endpoints a hint carries.
 */
final class Delivery extends MasterPart {

    private final Replies replies;
    private final Tokens tokens;

    Delivery(MasterBook book, Replies replies, Tokens tokens) {
        super(book);
        this.replies = replies;
        this.tokens = tokens;
    }

    /** The envelope due for {@code peer} after its sequence {@code after}, or null. In a turn of the loop. */
    Envelope due(Peer peer, long after) {
        return peer.outbox.due(after, () -> {
            long since = peer.dirtySince;
            Message m = peer instanceof AgentPeer a ? a.nextCap(this::capOwner, this::key, unitSpecs::get, restarts::launch, options.maxPlacements())
                    : ((JobMasterPeer) peer).nextHint(this::endpoint, this::epoch, options.maxPlacements(),
                            node -> pass((JobMasterPeer) peer, node), clock.millis(), PASS_MILLIS);
            peer.dirtySince = delivered(peer instanceof AgentPeer ? book.capLatencies : book.hintLatencies, since, peer.hasNews());
            return m;
        }, replies.self(), options.incarnation());
    }

    /** Notes the delivery latency of news that waited since {@code since}; the new dirty mark. */
    private long delivered(Latencies latencies, long since, boolean more) {
        long now = clock.millis();
        if (since >= 0) {
            latencies.add(now - since);
        }
        return more ? now : -1;
    }

    /**
     * Answers the parked polls of the peers whose news came in this turn, each with one message of
     * all of it (docs/protocol.md, "Transport"): a turn that revokes, grants and tells a node's state
     * sends a job master one hint of the three, never the grant before the state. Outside a turn (an
     * output of an event another component submitted) at once.
     */
    void sendDue() {
        if (book.sendAfterTurn.isEmpty()) {
            return;
        }
        List<Peer> peers = new ArrayList<>(book.sendAfterTurn);
        book.sendAfterTurn.clear();
        for (Peer peer : peers) {
            Outbox box = peer.outbox;
            try {
                Envelope e = box.hasParked() ? due(peer, box.parkedAfter()) : null;
                if (e != null) {
                    box.unpark().complete(replies.leased(new Reply(200, replies.encode(e))));
                }
            } catch (RuntimeException fault) {
                // one peer's message that cannot be built must not keep the others' from leaving
                String who = peer instanceof AgentPeer a ? "agent " + a.node : "job master " + ((JobMasterPeer) peer).id;
                CompletableFuture<Reply> poll = box.unpark();
                if (poll != null) {
                    poll.complete(replies.failed(who, 0, fault));
                }
            }
        }
    }

    /**
     * How long a plan pass is good for; the master renews each halfway through (docs/security.md,
     * "Plan passes"). Short enough that a pass copied off the wire is soon worth nothing, long
     * enough that a master outage within the recovery window does not stop plans.
     */
    static final long PASS_MILLIS = 10 * 60_000L;

    /**
     * A plan pass for the living incarnation of {@code jobMaster} (the one whose requests it applies)
     * at the agent of {@code node}, sealed with the key of
     * the token that agent registered with (it knows no other); null if it has not registered.
     */
    private String pass(JobMasterPeer jobMaster, String node) {
        AgentPeer a = agents.get(node);
        if (a == null || a.passKey == null || a.registration == null) {
            return null; // its agent has not registered with this master: no plan could go there yet
        }
        return PlanPass.issue(a.passKey, new PlanPass.Claims(jobMaster.id, jobMaster.requestIncarnation, node,
                key(jobMaster.id), clock.millis() + PASS_MILLIS));
    }

    private String endpoint(String node) {
        AgentPeer a = agents.get(node);
        return a == null || a.registration == null ? "" : a.registration.endpoint();
    }

    private long epoch(String node) {
        AgentPeer a = agents.get(node);
        return a == null ? 0 : a.epoch;
    }

    private String key(String jobMaster) {
        return book.keys.computeIfAbsent(jobMaster, jm -> Tokens.key(tokens.issue(new Sender(Role.JOB_MASTER, jm))));
    }

    /** The job master a cap of {@code job} is issued for: its owner, or the master for a restart. In a turn of the loop. */
    private String capOwner(String job) {
        String o = owners.get(job);
        return o != null ? o : restarts.owner(job);
    }
}
