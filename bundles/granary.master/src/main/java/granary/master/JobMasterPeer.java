package granary.master;

import granary.api.model.UnitId;
import granary.protocol.Hint;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.Session;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The master's record of one job master: its session, its jobs, where its units hold slots
 * (mirrored from the engine) and what changed since the last hint. Touched only in turns of the master's loop,
 * except {@link #session}.
 */
final class JobMasterPeer extends Peer {

    /** One unit on one node. */
    record Spot(UnitId unit, String node) {
    }

    final String id;
    final Session session;
    long requestIncarnation = -1;
    final Set<String> jobs = new HashSet<>();
    final Map<UnitId, Map<String, Integer>> placements = new HashMap<>();
    private final Set<Spot> changed = new LinkedHashSet<>();
    private final List<Hint.Exit> exits = new ArrayList<>();
    /** Nodes where it holds slots whose agent went silent or came back, to tell it (docs/recovery.md, "A silent node"). */
    private final Map<String, String> nodes = new java.util.LinkedHashMap<>();
    private boolean full;
    /** How the master may start it again, from its last full request; null: it does not (docs/recovery.md). */
    Request.Restart restart;
    /** Incarnations up to this one were declared lost and replaced by a restart: their messages are refused. */
    long fencedThrough = -1;
    /** While it is being restarted: what the restart waits for (status); null otherwise. */
    String restarting;
    /** Silent past its timeout with every job it ran ended: done, not lost (nothing to fail over). */
    boolean finished;
    /** When the next attempt to start it again is due (after a start that failed). */
    long retryAt = Long.MAX_VALUE;
    /** When the process the master had started for it died after it ran (0: none): restarted after a grace unless it spoke since. */
    long diedAt;
    /** Nodes it was told were lost and not yet that they are back. */
    final Set<String> toldLost = new HashSet<>();
    /** A start of it the master called off (its lost incarnation came back first): on which node, and until when a process of it is refused. */
    String calledOffNode;
    long calledOffUntil;
    /** The mark of its last request applied (of its current incarnation): said in each hint (docs/protocol.md, "Marks"). */
    long applied;
    /** Nodes it was given a plan pass for since the last renewal (docs/security.md, "Plan passes"). */
    private final Set<String> passed = new HashSet<>();
    /** Nodes whose pass the next hints carry (more than one hint holds at once). */
    private final Set<String> passDue = new java.util.TreeSet<>();
    /** When the first of its passes comes due for renewal. */
    private long nextRenewal = Long.MAX_VALUE;
    /** A pass came due: the next hint looks. */
    private boolean passCheck;

    JobMasterPeer(String id) {
        this.id = id;
        this.session = new Session(new Sender(Role.JOB_MASTER, id));
    }

    void set(UnitId unit, String node, int slots, long now) {
        Map<String, Integer> byNode = placements.computeIfAbsent(unit, u -> new HashMap<>());
        if (slots <= 0) {
            byNode.remove(node);
            if (byNode.isEmpty()) {
                placements.remove(unit);
            }
        } else {
            byNode.put(node, slots);
        }
        changed.add(new Spot(unit, node));
        mark(now);
    }

    /**
     * The request marked {@code mark} was applied, with releases on {@code spots}: those go in a
     * hint again, one that says the mark — a hint written while the request was being applied may
     * have carried their new counts with an older mark.
     */
    void applied(long mark, List<Spot> spots, long now) {
        if (mark > applied) {
            applied = mark;
        }
        if (!spots.isEmpty()) {
            changed.addAll(spots);
            mark(now);
        }
    }

    void exited(Hint.Exit exit, long now) {
        exits.add(exit);
        mark(now);
    }

    /** The agent of {@code node} is {@code state} ({@link Hint.NodeState#LOST} or {@link Hint.NodeState#BACK}): said in the next hint. */
    void nodeState(String node, String state, long now) {
        nodes.put(node, state);
        mark(now);
    }

    /** True if it holds slots of any unit on {@code node}. */
    boolean holdsOn(String node) {
        for (Map<String, Integer> byNode : placements.values()) {
            if (byNode.getOrDefault(node, 0) > 0) {
                return true;
            }
        }
        return false;
    }

    void sendFull(long now) {
        full = true;
        changed.clear();
        passed.clear(); // a new incarnation, or a master that restarted: every pass again
        passDue.clear();
        nextRenewal = Long.MAX_VALUE;
        mark(now);
    }

    /** The pass it holds for {@code node} is no good any more: the next placement there carries a new one. */
    void forgetPass(String node) {
        passed.remove(node);
    }

    /** True if the passes it was given come due for renewal at {@code now}. */
    private boolean passesDue(long now) {
        return nextRenewal <= now;
    }

    /** Marks it for a hint if a pass is due (the master's timer asks); true if one is. */
    boolean renewPasses(long now) {
        if (!passesDue(now)) {
            return false;
        }
        passCheck = true;
        mark(now);
        return true;
    }

    private void mark(long now) {
        if (dirtySince < 0) {
            dirtySince = now;
        }
    }

    @Override
    boolean ready() {
        return true;
    }

    @Override
    boolean hasNews() {
        return full || !changed.isEmpty() || !exits.isEmpty() || !nodes.isEmpty() || passCheck || !passDue.isEmpty();
    }

    /**
     * The hint to send next (at most {@code max} placements, exits and passes together, so that a
     * hint stays well within the wire's size limit; the rest follow in the next), or null if
     * nothing changed.
     * It carries a plan pass ({@code pass}: node to pass, null where none can be made yet) for each
     * node where it holds slots whose pass is new or due for renewal at {@code now}; a pass is
     * renewed halfway through {@code passMillis}.
     */
    Hint nextHint(Function<String, String> endpoint, java.util.function.ToLongFunction<String> epoch, int max,
                  Function<String, String> pass, long now, long passMillis) {
        if (!hasNews()) {
            return null;
        }
        List<Hint.Placement> out = new ArrayList<>();
        if (full) {
            full = false;
            placements.forEach((unit, byNode) -> byNode.forEach((node, slots) -> changed.add(new Spot(unit, node))));
        }
        Iterator<Spot> it = changed.iterator();
        while (it.hasNext() && out.size() < max) {
            Spot s = it.next();
            it.remove();
            int slots = placements.getOrDefault(s.unit(), Map.of()).getOrDefault(s.node(), 0);
            out.add(new Hint.Placement(s.unit(), s.node(), slots, endpoint.apply(s.node()), epoch.applyAsLong(s.node())));
        }
        int n = Math.min(exits.size(), Math.max(0, max - out.size()));
        List<Hint.Exit> sent = new ArrayList<>(exits.subList(0, n));
        exits.subList(0, n).clear();
        List<Hint.NodeState> states = new ArrayList<>();
        nodes.forEach((node, state) -> states.add(new Hint.NodeState(node, state)));
        nodes.clear();
        passCheck = false;
        return new Hint(out, sent, states, applied, passes(out, pass, now, passMillis, Math.max(0, max - out.size() - sent.size())));
    }

    /**
     * The passes a hint carries, at most {@code budget}: for the nodes of its placements that have
     * none yet, or, when renewal is due, for every node where it holds slots; those over the budget
     * wait for the next hint ({@link #passDue}).
     */
    private List<Hint.Pass> passes(List<Hint.Placement> out, Function<String, String> pass, long now, long passMillis, int budget) {
        if (nextRenewal <= now) {
            placements.values().forEach(byNode -> passDue.addAll(byNode.keySet()));
            passed.clear();
            nextRenewal = Long.MAX_VALUE;
        } else {
            out.stream().filter(p -> p.slots() > 0 && !passed.contains(p.node())).forEach(p -> passDue.add(p.node()));
        }
        List<Hint.Pass> passes = new ArrayList<>();
        boolean any = false;
        for (Iterator<String> it = passDue.iterator(); it.hasNext() && passes.size() < budget; ) {
            String node = it.next();
            it.remove();
            any = true;
            String p = pass.apply(node);
            if (p != null) {
                passes.add(new Hint.Pass(node, p));
                passed.add(node);
            }
        }
        if (any) {
            // the passes given before these come due first
            nextRenewal = Math.min(nextRenewal, now + passMillis / 2);
        }
        return passes;
    }

    long slots() {
        long n = 0;
        for (Map<String, Integer> byNode : placements.values()) {
            for (int s : byNode.values()) {
                n += s;
            }
        }
        return n;
    }
}
