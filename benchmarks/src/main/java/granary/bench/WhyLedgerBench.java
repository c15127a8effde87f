package granary.bench;

import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

import granary.api.event.GrantReleased;
import granary.api.event.Granted;
import granary.api.event.JobSubmitted;
import granary.api.event.Receipt;
import granary.api.event.UnitDesireChanged;
import granary.api.model.ManualClock;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.engine.Engine;

/**
 * The why-not-scheduled ledger where it costs most (docs/scheduling.md, "Why is my job not
 * scheduled?"): every waiting unit fits a freed slot and is refused it, so every check is a reason to
 * record. 100 nodes of 16 small slots are held by one filler unit of priority 0; {@code waiting} units
 * of one small slot and priority 1 (ahead of the filler in FIFO) each blacklist node n0.
 *
 * <p>One op = two events: {@code GrantReleased(fill/u, n0, 1)} (the filler gives a slot back and
 * wants one fewer): the passive fill of n0 walks every waiting unit — each fits, each refuses n0
 * (BLACKLISTED), which the ledger counts — and grants nothing; then {@code UnitDesireChanged(fill/u,
 * 1600)}: the filler wants the slot again and active placement puts it back on n0, so the state after
 * the op is the state before it. With the ledger off a refusal costs the check alone. {@code clockStepMillis} 0: each unit's reason text is built once, then only
 * counted; 1001: the engine clock moves on more than a second per op, so every text is built again
 * every op (the worst case).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"})
public class WhyLedgerBench {

    private static final int NODES = 100;
    private static final int SLOTS_PER_NODE = 16;

    /** Waiting units, each refused every freed slot. */
    @Param({"1000", "10000"})
    public int waiting;

    @Param({"true", "false"})
    public boolean whyLedger;

    @Param({"0", "1001"})
    public long clockStepMillis;

    private final ManualClock clock = new ManualClock(0);
    private Engine engine;
    private GrantReleased release;
    private UnitDesireChanged raise;

    @Setup(Level.Trial)
    public void setUp() {
        engine = Scenarios.fifoEngine(clock, whyLedger);
        Scenarios.addNodes(engine, NODES, Scenarios.NODE);
        Scenarios.expect(engine, new JobSubmitted(Scenarios.job("fill", Scenarios.unit(Scenarios.SMALL,
                NODES * SLOTS_PER_NODE, 0))), NODES * SLOTS_PER_NODE);
        UnitSpec refusing = UnitSpec.builder("u").slot(Scenarios.SMALL).desired(1).priority(1)
                .blacklist(Scenarios.node(0)).build();
        for (int i = 0; i < waiting; i++) {
            Scenarios.expect(engine, new JobSubmitted(Scenarios.job("w" + i, refusing)), 0);
        }
        release = new GrantReleased(new UnitId("fill", "u"), Scenarios.node(0), 1);
        raise = new UnitDesireChanged(release.unit(), NODES * SLOTS_PER_NODE);
        refuse(null);   // once before measuring: fails here if the steady step does not hold
        engine.checkInvariants();
        Scenarios.settle();
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        Scenarios.checkSteady(engine, waiting);
    }

    @Benchmark
    public void refuse(Blackhole bh) {
        clock.advance(clockStepMillis);
        Receipt freed = engine.handle(release);
        if (freed.outputs().stream().anyMatch(o -> o instanceof Granted)) { // only its Released
            throw new IllegalStateException("a waiting unit took the freed slot on n0: " + freed.outputs());
        }
        Receipt back = engine.handle(raise);
        if (back.outputs().size() != 1 || !((Granted) back.outputs().get(0)).unit().equals(release.unit())) {
            throw new IllegalStateException("the freed slot did not go back to the filler: " + back.outputs());
        }
        if (bh != null) {
            bh.consume(freed);
            bh.consume(back);
        }
    }
}
