package granary.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executor;

import granary.api.model.JobSpec;
import granary.api.model.Locality;
import granary.api.model.ManualClock;
import granary.api.model.NodeSpec;
import granary.api.event.Receipt;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.event.Granted;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.OutputEvent;
import granary.api.event.PolicyInstalled;
import granary.api.event.UnitDesireChanged;
import granary.api.spi.NodeView;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.policy.fair.FairPolicy;
import granary.policy.fifo.FifoPolicy;
import granary.policy.submitwindow.SubmitWindowPolicy;

/**
 * Engine states the benchmarks start from, built through the public API only (input events on an
 * engine with a manual clock). Every builder is deterministic: a seeded generator, the same events.
 *
 * <p>Shapes. A node has 16 cores and 64 GB ({@link #NODE}); a small slot is 1 core and 4 GB
 * ({@link #SMALL}), so 16 small slots fill a node exactly in both dimensions and one freed small
 * slot leaves exactly {@link #SMALL} free.
 */
public final class Scenarios {

    /** The group every job of the benchmarks is in. */
    public static final String GROUP = "bench";

    public static final Resources NODE = Resources.of(1600, 65536);
    public static final Resources SMALL = Resources.of(100, 4096);
    /** Too big for a freed small slot in both dimensions. */
    public static final Resources BIG = Resources.of(800, 32768);
    /** Too big for a freed small slot in cpu only. */
    public static final Resources CPU_HEAVY = Resources.of(800, 1024);
    /** Too big for a freed small slot in memory only. */
    public static final Resources MEM_HEAVY = Resources.of(50, 32768);

    /** Nodes per room (rack). */
    public static final int ROOM_SIZE = 40;

    private Scenarios() {
    }

    /** An engine with FIFO installed and selected, as in the brief. */
    public static Engine fifoEngine(ManualClock clock) {
        return fifoEngine(clock, new FifoPolicy(), Runnable::run);
    }

    private static Engine fifoEngine(ManualClock clock, FifoPolicy fifo, Executor reorders) {
        return fifoEngine(clock, fifo, reorders, true);
    }

    /** FIFO, with the why-not-scheduled ledger on or off (docs/scheduling.md, "Why is my job not scheduled?"). */
    public static Engine fifoEngine(ManualClock clock, boolean whyLedger) {
        return fifoEngine(clock, new FifoPolicy(), Runnable::run, whyLedger);
    }

    private static Engine fifoEngine(ManualClock clock, FifoPolicy fifo, Executor reorders, boolean whyLedger) {
        Engine e = new Engine(clock, new EngineOptions(List.of("fifo"), List.of("fifo"), false, whyLedger), reorders);
        e.handle(new PolicyInstalled(fifo, "bench"));
        return e;
    }

    /** FIFO as it was before sort keys: the same order, compared through {@code compare} only. */
    static final class FifoWithoutKey extends FifoPolicy {
        @Override
        public int sortKeyWidth() {
            return 0;
        }
    }

    /** SUBMITWINDOW compared through {@code compare} only. */
    static final class SubmitWindowWithoutKey extends SubmitWindowPolicy {
        @Override
        public int sortKeyWidth() {
            return 0;
        }
    }

    public static String node(int i) {
        return "n" + i;
    }

    public static void addNodes(Engine e, int count, Resources capacity) {
        for (int i = 0; i < count; i++) {
            e.handle(new NodeAdded(new NodeSpec(node(i), "r" + (i / ROOM_SIZE), capacity)));
        }
    }

    public static UnitSpec unit(Resources slot, int desired, int priority) {
        return UnitSpec.builder("u").slot(slot).desired(desired).priority(priority).build();
    }

    public static JobSpec job(String id, UnitSpec unit) {
        return new JobSpec(id, GROUP, "bench", 0, false, List.of(unit));
    }

    /**
     * Full collections after building a large state, so that the state sits in the old generation
     * and the first young collections of the measurement do not copy it (with 10^6 units they
     * otherwise pause for most of a second and land in the measured time).
     */
    public static void settle() {
        System.gc();
        System.gc();
    }

    /** After a steady-state benchmark: the engine's invariants hold and the queue kept its {@code waiting} units. */
    public static void checkSteady(Engine engine, int waiting) {
        engine.checkInvariants();
        if (engine.view().status().waitingUnits() != waiting) {
            throw new IllegalStateException("the queue drifted: " + engine.view().status());
        }
    }

    /** Handles an event and fails unless it granted or revoked exactly {@code slots} slots in all. */
    public static Receipt expect(Engine e, InputEvent ev, int slots) {
        Receipt r = e.handle(ev);
        // a Granted or Revoked event carries every slot of one unit on one node: count slots, not events
        long moved = r.outputs().stream().mapToLong(o -> o instanceof granary.api.event.Granted g ? g.slots()
                : o instanceof granary.api.event.Revoked v ? v.slots() : 0).sum();
        if (moved != slots) {
            throw new IllegalStateException(ev + " granted or revoked " + moved + " slots, expected " + slots
                    + ", first outputs: " + r.outputs().subList(0, Math.min(3, r.outputs().size())));
        }
        return r;
    }

    // ------------------------------------------------------------------------------------------
    // Passive pick

    /** Where the units that fit a freed small slot stand in the queue, and what the others look like. */
    public enum Layout {
        /** Too-big units ask for more cpu and more memory; the fitting ones are last in the queue. */
        TAIL,
        /** Like TAIL, but the too-big units alternate: cpu-heavy (8 cores, 1 GB) and memory-heavy (0.5 core, 32 GB). */
        MIXED,
        /** Too-big units as in TAIL; the fitting ones stand at seeded random places in the queue. */
        SPREAD;

        /** Slot of the {@code i}-th too-big unit. */
        public Resources bigSlot(int i) {
            return this == MIXED ? (i % 2 == 0 ? CPU_HEAVY : MEM_HEAVY) : BIG;
        }
    }

    /** How many of {@code n} waiting units fit a freed slot: 0.1%, at least one. */
    public static int fitting(int n) {
        return Math.max(1, n / 1000);
    }

    /** Queue positions (0-based, ascending) of the fitting units among {@code n}. */
    public static boolean[] fittingPositions(int n, Layout layout, long seed) {
        boolean[] fit = new boolean[n];
        int f = fitting(n);
        if (layout == Layout.SPREAD) {
            Random rnd = new Random(seed);
            int placed = 0;
            while (placed < f) {
                int p = rnd.nextInt(n);
                if (!fit[p]) {
                    fit[p] = true;
                    placed++;
                }
            }
        } else {
            for (int i = n - f; i < n; i++) {
                fit[i] = true;
            }
        }
        return fit;
    }

    /**
     * A full cluster of {@code nodes} nodes and {@code n} waiting units of which {@link #fitting}
     * fit a freed small slot. The first fitting unit in queue order ({@link Passive#picked}) holds
     * one small slot on {@link Passive#node} and wants one more: releasing that slot and raising the
     * desire back is the steady benchmark step (see {@link PassivePickBench}).
     */
    public static Passive passive(int nodes, int n, Layout layout) {
        ManualClock clock = new ManualClock(1_000_000);
        Engine e = fifoEngine(clock);
        addNodes(e, nodes, NODE);
        // fill every slot but one with a running filler unit (round-robin: the last node keeps one free)
        int slots = nodes * 16;
        expect(e, new JobSubmitted(job("filler", unit(SMALL, slots - 1, 0))), slots - 1);
        String free = null;
        for (NodeView v : e.view().cluster().nodes()) {
            if (!v.free().isZero()) {
                free = v.name();
            }
        }
        boolean[] fit = fittingPositions(n, layout, 42);
        UnitId picked = null;
        int big = 0;
        for (int i = 0; i < n; i++) {
            clock.advance(1);
            if (fit[i]) {
                if (picked == null) {
                    picked = new UnitId("w" + i, "u");
                    // takes the one free slot at once, then waits for a second one
                    expect(e, new JobSubmitted(job("w" + i, unit(SMALL, 2, 0))), 1);
                } else {
                    expect(e, new JobSubmitted(job("w" + i, unit(SMALL, 1, 0))), 0);
                }
            } else {
                expect(e, new JobSubmitted(job("w" + i, unit(layout.bigSlot(big++), 1, 0))), 0);
            }
        }
        if (e.view().status().waitingUnits() != n) {
            throw new IllegalStateException("expected " + n + " waiting units, have " + e.view().status());
        }
        e.checkInvariants();
        return new Passive(e, clock, picked, free);
    }

    /** A built passive-pick state. */
    public record Passive(Engine engine, ManualClock clock, UnitId picked, String node) {
    }

    // ------------------------------------------------------------------------------------------
    // Active placement

    /**
     * {@code nodes} nodes, partly filled with a seeded random pattern: half the nodes full, the others
     * holding 0..15 small slots (one MACHINE-pinned filler unit per node). Nothing waits.
     */
    public static Engine partlyFilled(int nodes, long seed) {
        ManualClock clock = new ManualClock(1_000_000);
        Engine e = fifoEngine(clock);
        addNodes(e, nodes, NODE);
        Random rnd = new Random(seed);
        for (int i = 0; i < nodes; i++) {
            int k = rnd.nextBoolean() ? 16 : rnd.nextInt(16);
            if (k > 0) {
                UnitSpec u = UnitSpec.builder("u").slot(SMALL).desired(k).prefer(Locality.machine(node(i), k)).build();
                expect(e, new JobSubmitted(job("f" + i, u)), k);
            }
        }
        e.checkInvariants();
        return e;
    }

    /** The unit that active placement places: {@code slots} slots of one core, CLUSTER locality. */
    public static JobSpec probe(String id, int slots) {
        UnitSpec u = UnitSpec.builder("u").slot(Resources.of(100, 1024)).desired(slots)
                .prefer(Locality.cluster(slots)).build();
        return job(id, u);
    }

    // ------------------------------------------------------------------------------------------
    // Policy swap

    /** Nodes of the swap scenario: 64 cores, 256 GB. */
    public static final Resources BIG_NODE = Resources.of(6400, 262144);
    /** Slot of the swap scenario: 1 core, 2 GB (64 per node, cpu-bound). */
    public static final Resources SWAP_SLOT = Resources.of(100, 2048);

    /**
     * FIFO, FAIR and SUBMITWINDOW (5 s windows) installed, FIFO in effect; {@code nodes} nodes of 64 cores, full; {@code n}
     * units, all waiting. Units arrive one per millisecond with priority 0..3 and 1..4 desired slots
     * (seeded); the first ones are placed at once until the cluster is full, then each of those asks
     * for 1..2 slots more, so that about {@code 64 * nodes / 2.5} waiting units hold 1..4 slots (FAIR
     * then orders them differently from FIFO) and the rest hold none.
     */
    public static Engine swap(int nodes, int n, long seed) {
        return swap(nodes, n, seed, true);
    }

    /**
     * As {@link #swap(int, int, long)}; {@code sortKeys} false installs FIFO and SUBMITWINDOW without
     * their sort keys (the engine then calls their comparators: the swap as it was before keys).
     */
    public static Engine swap(int nodes, int n, long seed, boolean sortKeys) {
        return swap(nodes, n, seed, sortKeys, Runnable::run);
    }

    /**
     * As {@link #swap(int, int, long, boolean)}, with the executor that builds a new unit order
     * (docs/scheduling.md, "Swapping the order off the engine thread"); {@code Runnable::run} swaps at
     * once, on the engine thread, as before.
     */
    public static Engine swap(int nodes, int n, long seed, boolean sortKeys, Executor reorders) {
        ManualClock clock = new ManualClock(1_000_000);
        Engine e = fifoEngine(clock, sortKeys ? new FifoPolicy() : new FifoWithoutKey(), reorders);
        e.handle(new PolicyInstalled(new FairPolicy(), "bench"));
        e.handle(new PolicyInstalled(sortKeys ? new SubmitWindowPolicy() : new SubmitWindowWithoutKey(), "bench"));
        addNodes(e, nodes, BIG_NODE);
        Random rnd = new Random(seed);
        List<UnitId> running = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            clock.advance(1);
            int desired = 1 + rnd.nextInt(4);
            Receipt r = e.handle(new JobSubmitted(job("j" + i, unit(SWAP_SLOT, desired, rnd.nextInt(4)))));
            int got = 0;
            for (OutputEvent o : r.outputs()) {
                got += ((Granted) o).slots();
            }
            if (got == desired) {
                running.add(new UnitId("j" + i, "u"));
            }
        }
        for (UnitId u : running) {
            clock.advance(1);
            int now = e.view().unit(u).desired();
            expect(e, new UnitDesireChanged(u, now + 1 + rnd.nextInt(2)), 0);
        }
        if (e.view().status().waitingUnits() != n) {
            throw new IllegalStateException("expected " + n + " waiting units, have " + e.view().status());
        }
        e.checkInvariants();
        return e;
    }
}
