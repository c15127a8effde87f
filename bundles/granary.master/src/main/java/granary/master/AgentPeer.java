package granary.master;

import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import granary.protocol.Cap;
import granary.protocol.Program;
import granary.protocol.Register;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.Session;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * The master's record of one agent: its session, its registration, the caps its node holds (slots
 * per unit, mirrored from the engine) and what changed since the last cap it was sent. Guarded by
 * turns of the master's loop, except {@link #session}, which the agent's own messages use one at a time.
 */
final class AgentPeer extends Peer {

    final String node;
    final Session session;
    Register registration;
    long registeredIncarnation = -1;
    /** The node's epoch as its agent registered it: named in every placement on the node (docs/recovery.md, "A silent node"). */
    long epoch;
    int workers;
    /** The key of the token it registered with: plan passes for its node are sealed with it (docs/security.md, "Plan passes"). */
    byte[] passKey;
    /** Slots per unit on this node, as the engine holds them. */
    final Map<UnitId, Integer> caps = new HashMap<>();
    private final Set<UnitId> changed = new LinkedHashSet<>();
    private final Set<UnitId> withdrawn = new LinkedHashSet<>();
    /** The last entry sent per unit the agent holds a cap of: what a withdrawal names once the job is gone. */
    private final Map<UnitId, Cap.Grant> sent = new HashMap<>();
    private boolean full;
    /** What the node and its workers use, as its last heartbeat said; null until one says (docs/agent.md). */
    granary.protocol.Heartbeat.Usage usage;
    /** Why its agent says the node is not fit for work, or null while it is (or does not say). */
    String unhealthy;
    /** Whether the master took the node out of scheduling for its health (and so puts it back when healthy). */
    boolean healthOut;
    /** Units to withdraw to what the master grants here, each with why (a cap carries one reason: one per cap). */
    private final Map<UnitId, String> forced = new LinkedHashMap<>();
    /** The last exits taken, so that one reported again is not taken twice. */
    private final java.util.LinkedHashSet<Slot> recentExits = new java.util.LinkedHashSet<>();

    /** One worker's slot on this node. */
    private record Slot(UnitId unit, int slot) {
    }
    /** How many exits are remembered per agent. */
    static final int RECENT_EXITS = 4096;

    /**
     * Workers started since: a slot started again (a job master that numbers its workers anew per
     * run does not, but one may reuse a slot once its worker ended) has a new exit to come, not a
     * repeat.
     */
    void started(List<granary.protocol.Heartbeat.Worker> started) {
        started.forEach(w -> recentExits.remove(new Slot(w.unit(), w.slot())));
    }

    /** {@code exited} without the exits taken already (a slot is one worker's: its exit comes once). */
    List<granary.protocol.Heartbeat.Exit> freshExits(List<granary.protocol.Heartbeat.Exit> exited) {
        List<granary.protocol.Heartbeat.Exit> out = new ArrayList<>();
        for (granary.protocol.Heartbeat.Exit x : exited) {
            if (recentExits.add(new Slot(x.unit(), x.slot()))) {
                out.add(x);
                if (recentExits.size() > RECENT_EXITS) {
                    Iterator<Slot> it = recentExits.iterator();
                    it.next();
                    it.remove();
                }
            }
        }
        return out;
    }

    /** Workers without a cap the master has decided about since this agent registered: unit#slot. */
    final Set<String> reconciled = new java.util.HashSet<>();
    /** What a restart unit's cap launches (docs/recovery.md, "Restarting a lost job master"); set per cap built. */
    private Function<UnitId, Program> launch = u -> null;

    AgentPeer(String node) {
        this.node = node;
        this.session = new Session(new Sender(Role.AGENT, node));
    }

    /** The unit's count here changed to {@code slots}; {@code withdrawal}: the agent must stop workers beyond it. */
    void set(UnitId unit, int slots, boolean withdrawal, long now) {
        if (slots <= 0) {
            caps.remove(unit);
        } else {
            caps.put(unit, slots);
        }
        (withdrawal ? withdrawn : changed).add(unit);
        if (dirtySince < 0) {
            dirtySince = now;
        }
    }

    /** The next cap sent is the whole table (after a registration). */
    void sendFull(long now) {
        full = true;
        changed.clear();
        withdrawn.clear();
        forced.clear();
        reconciled.clear();
        dirtySince = now;
    }

    /**
     * The agent runs workers of {@code unit} without a cap and the master does not grant them: the
     * next cap withdraws the unit to what the master grants here when that cap is written (not when
     * this was decided: releases and grants may come between), saying {@code why}, even for a unit
     * the master never sent this agent (the agent then stops the workers beyond it).
     */
    void withdraw(UnitId unit, String why, long now) {
        forced.put(unit, why);
        if (dirtySince < 0) {
            dirtySince = now;
        }
    }

    @Override
    boolean ready() {
        return registration != null;
    }

    @Override
    boolean hasNews() {
        return full || !changed.isEmpty() || !withdrawn.isEmpty() || !forced.isEmpty();
    }

    /**
     * The cap to send next, with at most {@code max} entries (the rest stay for the next), or null
     * if nothing changed. Units whose job has no job master ({@code owner} null) are not agent work
     * and are left out.
     */
    Cap nextCap(Function<String, String> owner, Function<String, String> key, Function<UnitId, UnitSpec> spec,
                Function<UnitId, Program> launch, int max) {
        this.launch = launch;
        if (!hasNews()) {
            return null;
        }
        List<Cap.Grant> grants = new ArrayList<>();
        List<Cap.Grant> withdrawals = new ArrayList<>();
        boolean wasFull = full;
        if (full) {
            full = false;
            sent.clear(); // the agent replaces its table with this one
            for (Map.Entry<UnitId, Integer> e : caps.entrySet()) {
                add(grants, e.getKey(), e.getValue(), owner, key, spec);
            }
            changed.removeAll(caps.keySet()); // in the table already: once is enough
        }
        drain(withdrawn, withdrawals, owner, key, spec, max);
        String why = null;
        for (Iterator<Map.Entry<UnitId, String>> it = forced.entrySet().iterator(); it.hasNext() && withdrawals.size() < max; ) {
            Map.Entry<UnitId, String> f = it.next();
            if (why != null && !why.equals(f.getValue())) {
                break; // another reason: its own cap, next
            }
            it.remove();
            int before = withdrawals.size();
            int keep = caps.getOrDefault(f.getKey(), 0);
            add(withdrawals, f.getKey(), keep, owner, key, spec);
            if (withdrawals.size() == before) {
                // a unit this agent was never sent: named by itself, so that its workers stop
                withdrawals.add(new Cap.Grant(Restarts.OWNER, f.getKey(), keep, "", Resources.ZERO, false));
            }
            why = f.getValue();
        }
        drain(changed, grants, owner, key, spec, max - withdrawals.size());
        return wasFull || !grants.isEmpty() || !withdrawals.isEmpty() ? new Cap(grants, withdrawals, wasFull, why) : null;
    }

    private void drain(Set<UnitId> from, List<Cap.Grant> to, Function<String, String> owner,
                       Function<String, String> key, Function<UnitId, UnitSpec> spec, int max) {
        Iterator<UnitId> it = from.iterator();
        while (it.hasNext() && to.size() < Math.max(0, max)) {
            UnitId u = it.next();
            it.remove();
            add(to, u, caps.getOrDefault(u, 0), owner, key, spec);
        }
    }

    /**
     * A cap entry carries the slot's size and whether the unit is online, so a restarted master can
     * rebuild from it. A unit whose job is gone (cancelled) is sent as the agent last heard of it, so
     * that its withdrawal reaches the agent.
     */
    private void add(List<Cap.Grant> to, UnitId unit, int slots, Function<String, String> owner,
                     Function<String, String> key, Function<UnitId, UnitSpec> spec) {
        String jm = owner.apply(unit.job());
        Cap.Grant g;
        if (jm != null) {
            UnitSpec u = spec.apply(unit);
            g = new Cap.Grant(jm, unit, slots, key.apply(jm), u == null ? Resources.ZERO : u.slot(),
                    u != null && u.kind() == UnitKind.ONLINE, launch.apply(unit));
        } else {
            Cap.Grant before = sent.get(unit);
            if (before == null) {
                return; // never sent to this agent: nothing to withdraw
            }
            g = before.withSlots(slots);
        }
        to.add(g);
        if (slots > 0) {
            sent.put(unit, g);
        } else {
            sent.remove(unit);
        }
    }

    long slots() {
        long n = 0;
        for (int s : caps.values()) {
            n += s;
        }
        return n;
    }
}
