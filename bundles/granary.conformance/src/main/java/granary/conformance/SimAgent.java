package granary.conformance;

import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.protocol.Ack;
import granary.protocol.Cap;
import granary.protocol.Heartbeat;
import granary.protocol.Message;
import granary.protocol.Register;
import granary.protocol.Role;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An agent as the protocol sees it: it registers with every cap it holds, heartbeats every second
 * with the workers started and exited, applies caps from its inbox and checkpoints them; it runs a
 * worker per capped slot (the job master's plans are taken as given). Offline workers end after
 * their task's run time; online ones run until stopped. Its workers outlive a restart of the agent
 * (the operating system keeps them), its checkpoint too; everything else is lost.
 */
final class SimAgent extends SimPeer {

    static final long HEARTBEAT_MILLIS = 1_000;

    record Worker(UnitId unit, int slot, boolean online, long endsAt, boolean launched) {
    }

    final String node;
    final Resources capacity;
    private final Map<UnitId, Cap.Grant> caps = new TreeMap<>();
    private Map<UnitId, Cap.Grant> checkpoint = new TreeMap<>();
    final List<Worker> workers = new ArrayList<>();
    private final List<Heartbeat.Worker> started = new ArrayList<>();
    private final List<Heartbeat.Exit> exited = new ArrayList<>();
    private int heartbeatCarried;
    private int startedCarried;
    private boolean heartbeatPending;
    private boolean registered;
    private boolean registering;
    private long heartbeatAt;
    private int nextSlot;
    /** Online workers this agent stopped because the master lowered their cap: must stay 0. */
    int onlineStopped;

    SimAgent(World world, String node, Resources capacity, long incarnation) {
        super(world, Role.AGENT, node, incarnation);
        this.node = node;
        this.capacity = capacity;
        register();
    }

    private void register() {
        registering = true;
        registered = false;
        heartbeatCarried = 0;
        startedCarried = 0;
        heartbeatPending = false;
        send(new Register(node, "r1", Map.of(), capacity, "http://inproc.invalid/" + node, new ArrayList<>(caps.values())));
    }

    /** Failover: memory lost; the caps come back from the checkpoint, the workers kept running. */
    void failover(long newIncarnation) {
        restart(newIncarnation);
        caps.clear();
        caps.putAll(checkpoint);
        started.clear();
        workers.forEach(w -> started.add(new Heartbeat.Worker(w.unit(), w.slot())));
        register();
    }

    @Override
    boolean ready() {
        return registered;
    }

    @Override
    void onResync(String why) {
        register();
    }

    @Override
    void onApplied(Message m) {
        if (m instanceof Register) {
            registering = false;
            registered = true;
            started.clear();
            workers.forEach(w -> started.add(new Heartbeat.Worker(w.unit(), w.slot())));
        } else if (m instanceof Heartbeat) {
            exited.subList(0, Math.min(heartbeatCarried, exited.size())).clear();
            started.subList(0, Math.min(startedCarried, started.size())).clear();
            heartbeatCarried = 0;
            startedCarried = 0;
            heartbeatPending = false;
        }
    }

    @Override
    void onRefused(Message m, Ack ack) {
        heartbeatCarried = 0;
        startedCarried = 0;
        heartbeatPending = false;
        if (m instanceof Heartbeat && !registering) {
            register(); // declared lost, or a master that does not know this incarnation: register again
        } else if (m instanceof Register) {
            world.violation("master refused the registration of " + node + ": " + ack.problems());
        }
    }

    @Override
    void onInbox(Message m) {
        if (!(m instanceof Cap cap)) {
            return;
        }
        if (cap.full()) {
            caps.clear();
        }
        for (Cap.Grant g : cap.grants()) {
            put(g);
        }
        for (Cap.Grant g : cap.withdrawals()) {
            put(g);
        }
        checkpoint = new TreeMap<>(caps);
        enforce();
    }

    private void put(Cap.Grant g) {
        if (g.slots() <= 0) {
            caps.remove(g.unit());
        } else {
            caps.put(g.unit(), g);
        }
    }

    /** Stops the newest workers beyond each cap; starts workers up to it. */
    private void enforce() {
        long now = world.now();
        for (int i = workers.size() - 1; i >= 0; i--) {
            Worker w = workers.get(i);
            Cap.Grant g = caps.get(w.unit());
            if (running(w.unit()) > (g == null ? 0 : g.slots())) {
                workers.remove(i);
                exited.add(new Heartbeat.Exit(w.unit(), w.slot(), -15));
                // A restart slot's worker (a job master the master started) is stopped only by the
                // master starting it again elsewhere: not a service's worker taken back.
                boolean asked = w.online() && (w.launched() || world.releasedStop(w.unit(), node));
                if (asked) {
                    world.stoppedOnRequest(node, w.unit() + "#" + w.slot());
                }
                if (w.online() && !asked) {
                    onlineStopped++;
                    world.violation("the master withdrew the cap of online worker " + w.unit() + " slot " + w.slot()
                            + " on " + node + " at " + now + " ms");
                }
            }
        }
        for (Cap.Grant g : caps.values()) {
            while (running(g.unit()) < g.slots()) {
                int slot = nextSlot++;
                long runs = world.taskMillis(g.unit());
                workers.add(new Worker(g.unit(), slot, g.online(), g.online() ? Long.MAX_VALUE : now + runs, g.launch() != null));
                started.add(new Heartbeat.Worker(g.unit(), slot));
                if (g.launch() != null) {
                    world.launchJobMaster(g, node); // a cap that carries its launch: no plan comes for it
                }
            }
        }
    }

    int running(UnitId unit) {
        int n = 0;
        for (Worker w : workers) {
            if (w.unit().equals(unit)) {
                n++;
            }
        }
        return n;
    }

    @Override
    void tick(long now) {
        if (!crashed) {
            boolean ended = false;
            for (int i = workers.size() - 1; i >= 0; i--) {
                Worker w = workers.get(i);
                if (w.endsAt() <= now) {
                    workers.remove(i);
                    exited.add(new Heartbeat.Exit(w.unit(), w.slot(), 0));
                    world.taskDone(w.unit());
                    ended = true;
                }
            }
            if (registered && !heartbeatPending && (now >= heartbeatAt || ended)) {
                heartbeatPending = true;
                heartbeatCarried = exited.size();
                startedCarried = started.size();
                send(new Heartbeat(new ArrayList<>(started), new ArrayList<>(exited), null));
                heartbeatAt = now + HEARTBEAT_MILLIS;
            }
        }
        super.tick(now);
    }

    Map<UnitId, Cap.Grant> caps() {
        return caps;
    }

    /** Resources the caps held now take: must never exceed the capacity. */
    Resources capped() {
        Resources sum = Resources.ZERO;
        for (Cap.Grant g : caps.values()) {
            sum = sum.plus(g.size().times(g.slots()));
        }
        return sum;
    }
}
