package granary.sim.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import granary.api.model.JobSpec;
import granary.api.model.ManualClock;
import granary.api.model.NodeSpec;
import granary.api.event.Receipt;
import granary.api.model.Resources;
import granary.api.model.UnitSpec;
import granary.api.event.Granted;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.NodeBlacklisted;
import granary.api.event.OutputEvent;
import granary.api.event.PolicyActivated;
import granary.api.event.PolicyInstalled;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.api.spi.ExtensionPoint;
import granary.sim.run.ClassPathPolicies;
import granary.sim.run.PolicySource;
import granary.sim.run.SimDefaults;

/**
 * Whole-engine throughput in the shape of YARN's scheduler throughput tests: {@code N} nodes of
 * 64 cores / 256 GiB, {@code Q} leaf queues ({@code root.q0 ..}, equal guarantees, the queue
 * policy), {@code A} applications spread over the queues, each asking {@code K} containers of
 * 1 core / 2 GiB (one unit of K slots), FIFO inside a queue. The nodes join dark (on the blacklist,
 * as if they had not reported yet) and the applications are submitted; then the nodes report their
 * free capacity in turns, like heartbeats (each report takes the node off the blacklist, and the
 * engine fills it from the queues: passive scheduling, docs/scheduling.md, "Passive scheduling"). The clock runs from the first
 * report until every container is granted (or every node has reported and nothing more fits); an
 * alloc is one slot granted. Several runs after warm-up; the median is printed last:
 * <pre>granary nodes=N apps=A containers=K queues=Q allocs_per_s=X wall_s=Y</pre>
 * With {@code --scale} it also measures the heap held with every container waiting (used heap after
 * a full GC, beside the JVM's heap limit) and the pause of a unit-order swap (to FAIR, or to the
 * order {@code --swap-to} names, and back) over all the waiting units; {@code benchmarks/scale.sh}
 * runs it at 100,000 nodes and 10^6 waiting units in 2 GiB of heap.
 *
 * <p>Usage: {@code Throughput N A K Q [--runs R] [--warmup W] [--scale [--swap-to ORDER]] [--unit-order ORDER]
 * [--why-ledger on|off]} (defaults: 7 measured runs after 5 warm-ups; the unit order the simulator's
 * configuration falls back to first ({@code granary/sim/run/defaults.properties}: FIFO, which grants
 * as many containers per decision as fit; FAIR grants one per decision, like a scheduler that assigns
 * containers one at a time); a swap to the next installed unit order; the why-not-scheduled ledger
 * on, as in the runtime: {@code off} measures what it costs, docs/scheduling.md, "Why is my job not
 * scheduled?").
 *
 * <p>The one policy named here is the queue policy, {@link #QUEUES}: the benchmark's subject is its
 * shape (leaf queues with equal guarantees, written as that policy's tree file and handed to its
 * {@code file} option).
 */
public final class Throughput {

    /**
     * The queue policy, whose tree of leaf queues this benchmark builds (its file format, its option
     * {@code file}): the benchmark's subject, so its one policy name.
     */
    static final String QUEUES = "queues";
    private static final Resources NODE = Resources.of(6400, 256 * 1024);
    private static final Resources CONTAINER = Resources.of(100, 2 * 1024);

    private final int nodes;
    private final int apps;
    private final int containers;
    private final int queues;
    private Path treeFile;
    private final String unitOrder;
    /** The unit order a scale run swaps to and back from. */
    private final String swapTo;
    private final ClassPathPolicies policies = new ClassPathPolicies();
    /** Keep the why-not-scheduled ledger (EngineOptions.whyLedger). */
    private boolean whyLedger = true;

    /** What one run measured. */
    record Run(long allocs, double wallSeconds, long heartbeats, long decisions, double submitSeconds, long heapBytes, double swapMs,
               double swapBackMs, double cpuSeconds, double submitCpuSeconds) {
        double allocsPerSecond() {
            return allocs / wallSeconds;
        }

        /**
         * Allocs per second of the engine thread's CPU time: on a shared machine, time spent waiting for
         * a core is not counted, so this spreads less than {@link #allocsPerSecond()} between runs.
         */
        double allocsPerCpuSecond() {
            return allocs / cpuSeconds;
        }
    }

    /**
     * @param unitOrder the unit order measured; null: the first installed one of the simulator's fallback
     * @param swapTo    the unit order a scale run swaps to; null: the next installed one
     */
    Throughput(int nodes, int apps, int containers, int queues, String unitOrder, String swapTo) {
        List<String> orders = SimDefaults.shipped().implementing(policies, ExtensionPoint.UNIT_ORDER);
        if (orders.isEmpty()) {
            throw new IllegalArgumentException("no installed policy implements " + ExtensionPoint.UNIT_ORDER.id()
                    + " (installed: " + String.join(", ", policies.names()) + ")");
        }
        this.unitOrder = unitOrder != null ? unitOrder : orders.get(0);
        this.swapTo = swapTo != null ? swapTo
                : orders.stream().filter(o -> !o.equals(this.unitOrder)).findFirst().orElse(this.unitOrder);
        if (swapTo != null && swapTo.equals(this.unitOrder)) {
            throw new IllegalArgumentException("--swap-to must name another unit order than " + this.unitOrder);
        }
        this.nodes = nodes;
        this.apps = apps;
        this.containers = containers;
        this.queues = queues;
    }

    public static void main(String[] args) {
        try {
            List<String> a = new ArrayList<>(Arrays.asList(args));
            boolean scale = a.remove("--scale");
            String order = text(a, "--unit-order", null);
            String swapTo = text(a, "--swap-to", null);
            int runs = option(a, "--runs", 7);
            int warmup = option(a, "--warmup", 5);
            String ledger = text(a, "--why-ledger", "on");
            if (!ledger.equals("on") && !ledger.equals("off")) {
                throw new IllegalArgumentException("--why-ledger is on or off, got '" + ledger + "'");
            }
            if (a.size() != 4) {
                throw new IllegalArgumentException("expected N A K Q (nodes, applications, containers each, leaf queues), got " + a);
            }
            int[] n = a.stream().mapToInt(Throughput::positive).toArray();
            Throughput t = new Throughput(n[0], n[1], n[2], n[3], order, swapTo);
            t.whyLedger = ledger.equals("on");
            System.exit(t.measure(runs, warmup, scale));
        } catch (IllegalArgumentException e) {
            System.err.println("Error: " + e.getMessage());
            System.err.println("Usage: Throughput N A K Q [--runs R] [--warmup W] [--scale [--swap-to ORDER]] [--unit-order ORDER]"
                    + " [--why-ledger on|off]");
            System.exit(2);
        }
    }

    private static String text(List<String> a, String name, String dflt) {
        int i = a.indexOf(name);
        if (i < 0) {
            return dflt;
        }
        if (i + 1 >= a.size()) {
            throw new IllegalArgumentException(name + " needs a value");
        }
        String v = a.get(i + 1);
        a.remove(i + 1);
        a.remove(i);
        return v;
    }

    private static int option(List<String> a, String name, int dflt) {
        int i = a.indexOf(name);
        if (i < 0) {
            return dflt;
        }
        if (i + 1 >= a.size()) {
            throw new IllegalArgumentException(name + " needs a number");
        }
        int v = Integer.parseInt(a.get(i + 1));
        a.remove(i + 1);
        a.remove(i);
        return v;
    }

    private static int positive(String s) {
        try {
            int v = Integer.parseInt(s);
            if (v > 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("'" + s + "' is not a whole number >= 1");
    }

    int measure(int runs, int warmup, boolean scale) {
        if (scale && swapTo.equals(unitOrder)) {
            throw new IllegalArgumentException("--scale swaps the unit order, and " + unitOrder + " is the only one installed");
        }
        List<Run> measured = new ArrayList<>();
        for (int i = 0; i < warmup + runs; i++) {
            Run r = runOnce(scale);
            System.err.printf(Locale.ROOT, "%s %d: allocs=%d heartbeats=%d decisions=%d wall_s=%.4f allocs_per_s=%.0f cpu_s=%.4f"
                            + " allocs_per_cpu_s=%.0f submit_s=%.3f submit_cpu_s=%.3f%s%n",
                    i < warmup ? "warm-up" : "run", i < warmup ? i + 1 : i - warmup + 1, r.allocs(), r.heartbeats(),
                    r.decisions(), r.wallSeconds(), r.allocsPerSecond(), r.cpuSeconds(), r.allocsPerCpuSecond(),
                    r.submitSeconds(), r.submitCpuSeconds(), scale ? String.format(Locale.ROOT,
                            " heap_mb=%d swap_ms=%.1f swap_back_ms=%.1f", r.heapBytes() >> 20, r.swapMs(), r.swapBackMs()) : "");
            if (i >= warmup) {
                measured.add(r);
            }
        }
        measured.sort((x, y) -> Double.compare(x.allocsPerSecond(), y.allocsPerSecond()));
        Run median = measured.get(measured.size() / 2);
        if (scale) {
            System.out.printf(Locale.ROOT, "granary-scale nodes=%d apps=%d containers=%d queues=%d unit_order=%s swap_to=%s waiting_units=%d "
                            + "heap_mb=%d heap_max_mb=%d swap_ms=%.1f swap_back_ms=%.1f%n", nodes, apps, containers, queues, unitOrder, swapTo,
                    apps, median(measured, Run::heapBytes) >> 20, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getMax() >> 20,
                    medianD(measured, Run::swapMs), medianD(measured, Run::swapBackMs));
        }
        System.out.printf(Locale.ROOT, "granary nodes=%d apps=%d containers=%d queues=%d allocs_per_s=%.0f wall_s=%.4f%n",
                nodes, apps, containers, queues, median.allocsPerSecond(), median.wallSeconds());
        return 0;
    }

    private static long median(List<Run> runs, java.util.function.ToLongFunction<Run> f) {
        return runs.stream().mapToLong(f).sorted().toArray()[runs.size() / 2];
    }

    private static double medianD(List<Run> runs, java.util.function.ToDoubleFunction<Run> f) {
        return runs.stream().mapToDouble(f).sorted().toArray()[runs.size() / 2];
    }

    Run runOnce(boolean scale) {
        Engine engine = new Engine(new ManualClock(0), new EngineOptions(List.of(QUEUES, unitOrder), List.of(), false, whyLedger));
        install(engine, unitOrder, Map.of());
        install(engine, QUEUES, Map.of("file", treeFile().toString()));   // the queue policy reads its tree file
        String other = swapTo;
        if (scale) {
            install(engine, other, Map.of());
        }
        String[] names = new String[nodes];
        int width = Integer.toString(nodes - 1).length();
        for (int i = 0; i < nodes; i++) {
            names[i] = String.format("n%0" + width + "d", i);
            handle(engine, new NodeAdded(new NodeSpec(names[i], "r" + i / 1000, NODE)));
            handle(engine, new NodeBlacklisted(names[i], true));
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long t0 = System.nanoTime();
        long submitCpu = threads.getCurrentThreadCpuTime();
        for (int a = 0; a < apps; a++) {
            UnitSpec unit = UnitSpec.builder("containers").slot(CONTAINER).desired(containers).build();
            handle(engine, new JobSubmitted(new JobSpec("app-" + a, "q" + a % queues, "user-" + a % 100, 0, false, List.of(unit))));
        }
        double submit = (System.nanoTime() - t0) / 1e9;
        submitCpu = threads.getCurrentThreadCpuTime() - submitCpu;
        long heap = 0;
        double swap = 0;
        double swapBack = 0;
        if (scale) {
            heap = usedHeapAfterGc();
            swap = timed(engine, new PolicyActivated(other));
            swapBack = timed(engine, new PolicyActivated(unitOrder));
        }
        long[] granted = {0};
        engine.subscribe(e -> count(e, granted));
        long want = (long) apps * containers;
        long heartbeats = 0;
        long decisions = engine.view().status().decisions();
        System.gc();   // the setup's garbage is not charged to the measured phase
        long cpuStart = threads.getCurrentThreadCpuTime();
        long start = System.nanoTime();
        for (int round = 0; granted[0] < want; round++) {
            long before = granted[0];
            for (int i = 0; i < nodes && granted[0] < want; i++) {
                engine.handle(new NodeBlacklisted(names[i], false));
                heartbeats++;
            }
            if (granted[0] == before && round > 0) {
                break;   // every node reported twice and nothing more fits
            }
        }
        double wall = (System.nanoTime() - start) / 1e9;
        double cpu = (threads.getCurrentThreadCpuTime() - cpuStart) / 1e9;
        decisions = engine.view().status().decisions() - decisions;
        return new Run(granted[0], wall, heartbeats, decisions, submit, heap, swap, swapBack, cpu, submitCpu / 1e9);
    }

    private static void count(OutputEvent e, long[] granted) {
        if (e instanceof Granted g) {
            granted[0] += g.slots();
        }
    }

    private String tree() {
        StringBuilder sb = new StringBuilder("{\"queues\": {");
        double share = Math.floor(1_000_000.0 / queues) / 1_000_000.0;
        for (int q = 0; q < queues; q++) {
            sb.append(q == 0 ? "" : ", ").append("\"q").append(q).append("\": {\"capacity\": ").append(share).append('}');
        }
        return sb.append("}}").toString();
    }

    /** The generated queue tree, written once to a temporary file that goes when the JVM exits. */
    private Path treeFile() {
        if (treeFile == null) {
            try {
                treeFile = Files.createTempFile("granary-bench-queues-", ".json");
                treeFile.toFile().deleteOnExit();
                Files.writeString(treeFile, tree(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the generated queue tree: " + e.getMessage(), e);
            }
        }
        return treeFile;
    }

    private void install(Engine engine, String name, Map<String, String> options) {
        PolicySource.Created c = policies.create(name, options);
        handle(engine, new PolicyInstalled(c.policy(), c.origin()));
    }

    private static Receipt handle(Engine engine, InputEvent e) {
        return engine.handle(e);
    }

    private static double timed(Engine engine, InputEvent e) {
        System.gc();
        long t = System.nanoTime();
        engine.handle(e);
        return (System.nanoTime() - t) / 1e6;
    }

    private static long usedHeapAfterGc() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
