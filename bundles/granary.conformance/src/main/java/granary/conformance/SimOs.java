package granary.conformance;

import granary.agent.Launcher;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.protocol.Heartbeat;
import granary.protocol.Plan;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntConsumer;

/**
 * One node's operating system in the simulated world: the worker processes, which outlive the
 * agent that started them (a killed agent leaves them running, as the kernel does), and the run
 * records on the node's disk. Each agent incarnation gets a {@link Launcher} bound to its loop, so
 * the shipped agent code starts, stops, adopts and hears of workers exactly as with the real
 * {@code OsLauncher}: a worker's exit code is always recorded (the real one's wrapper writes it),
 * a worker whose record was lost is found by scanning the processes of the node, as the real one
 * scans {@code /proc}.
 *
 * <p>What a worker does: a batch task ({@code tasks}) ends with 0 after its job's task time; a
 * service worker runs until stopped; the slot of a master's restart of a job master
 * ({@code granary.restart-N@ID/job-master}) runs that job master, and ends when it exits.
 */
final class SimOs {

    /** A process of this node. */
    final class Proc {
        final long pid;
        final Launcher.Record record;
        final Map<String, String> env;
        final long started;
        boolean alive = true;
        boolean stopping;
        int code;
        long ended = -1;
        final List<Runnable> onEnd = new ArrayList<>();
        JobMasterProcess jobMaster;

        Proc(long pid, Launcher.Record record, Map<String, String> env) {
            this.pid = pid;
            this.record = record;
            this.env = env;
            this.started = world.now();
        }

        String node() {
            return node;
        }
    }

    private final World world;
    final String node;
    /** The node's run records ({@code run/} of the agent's work dir). */
    final SimDisk runDisk;
    private final Map<Long, Proc> procs = new LinkedHashMap<>();

    SimOs(World world, String node) {
        this.world = world;
        this.node = node;
        this.runDisk = new SimDisk(node + "/run", world);
    }

    /** The process {@code pid}, alive or not, or null. */
    Proc proc(long pid) {
        return procs.get(pid);
    }

    /** The processes that run now. */
    List<Proc> alive() {
        return procs.values().stream().filter(p -> p.alive).toList();
    }

    /** A launcher for the agent incarnation running on {@code loop}. */
    Launcher launcher(SimLoop loop) {
        return new Launcher() {
            @Override
            public Running start(Plan.Launch l, Record r) {
                return handle(spawn(l, r), loop);
            }

            @Override
            public List<Left> left(Consumer<String> problems) {
                return SimOs.this.left(loop, problems);
            }

            @Override
            public void reported(UnitId unit, int slot, int code) {
                runDisk.replaceQuietly(base(unit, slot) + ".reported", Integer.toString(code).getBytes(StandardCharsets.UTF_8));
            }

            @Override
            public void forget(UnitId unit, int slot) {
                runDisk.delete(base(unit, slot) + ".worker");
                runDisk.delete(base(unit, slot) + ".reported");
                runDisk.delete(base(unit, slot) + ".stopped");
            }
        };
    }

    private Proc spawn(Plan.Launch l, Launcher.Record r) {
        Map<String, String> env = new HashMap<>(l.environment());
        env.put("GRANARY_NODE", node);
        env.put("GRANARY_UNIT", l.unit().toString());
        env.put("GRANARY_SLOT", Integer.toString(l.slot()));
        Proc p = new Proc(world.nextPid(), r, env);
        procs.put(p.pid, p);
        runDisk.delete(base(r.unit(), r.slot()) + ".stopped");
        runDisk.replaceQuietly(base(r.unit(), r.slot()) + ".worker", record(r, p.pid));
        world.ledger.started(p);
        String job = l.unit().job();
        if (l.unit().unit().equals("job-master") && job.startsWith("granary.restart-") && job.contains("@")) {
            p.jobMaster = world.startJobMasterFromCap(job.substring(job.indexOf('@') + 1), node, code -> end(p, code));
        } else if (!r.online()) {
            world.later(world.now() + world.taskMillis(l.unit()), () -> end(p, 0));
        }
        return p;
    }

    /** {@code p} ended with {@code code}: recorded, and told to whoever watches it. */
    void end(Proc p, int code) {
        if (!p.alive) {
            return;
        }
        p.alive = false;
        p.code = code;
        p.ended = world.now();
        if (p.jobMaster != null) {
            p.jobMaster.killedWithItsSlot();
        }
        world.ledger.ended(p, code);
        for (Runnable r : p.onEnd) {
            r.run();
        }
        p.onEnd.clear();
    }

    private Launcher.Running handle(Proc p, SimLoop loop) {
        return new Launcher.Running() {
            @Override
            public long pid() {
                return p.pid;
            }

            @Override
            public void onExit(IntConsumer exited) {
                Runnable tell = () -> loop.execute(() -> exited.accept(p.code));
                if (p.alive) {
                    p.onEnd.add(tell);
                } else {
                    tell.run();
                }
            }

            @Override
            public void stop() {
                // as OsLauncher: the stop's mark first (an empty file), then SIGTERM
                runDisk.replaceQuietly(base(p.record.unit(), p.record.slot()) + ".stopped", new byte[0]);
                if (p.alive && !p.stopping) {
                    p.stopping = true;
                    world.later(world.now() + 100, () -> end(p, 143));
                }
            }

            @Override
            public void kill() {
                end(p, 137);
            }

            @Override
            public boolean alive() {
                return p.alive;
            }
        };
    }

    private List<Launcher.Left> left(SimLoop loop, Consumer<String> problems) {
        List<Launcher.Left> out = new ArrayList<>();
        Set<Long> recorded = new HashSet<>();
        for (String name : runDisk.list(".worker")) {
            Map<String, String> v = new HashMap<>();
            byte[] b = runDisk.read(name);
            for (String line : new String(b == null ? new byte[0] : b, StandardCharsets.UTF_8).split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    v.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
            Launcher.Record r;
            long pid;
            try {
                r = new Launcher.Record(UnitId.parse(v.get("unit")), Integer.parseInt(v.get("slot")), v.get("jobMaster"),
                        v.get("key"), Resources.parse(v.get("size")), Boolean.parseBoolean(v.get("online")));
                pid = Long.parseLong(v.get("pid"));
                if (r.jobMaster() == null || r.key() == null) {
                    throw new IllegalArgumentException("no jobMaster or key");
                }
            } catch (RuntimeException ex) {
                problems.accept("run record " + runDisk.where(name) + " does not read (" + ex.getMessage() + "): dropped");
                runDisk.delete(name);
                continue;
            }
            Proc p = procs.get(pid);
            recorded.add(pid);
            boolean stopped = runDisk.has(base(r.unit(), r.slot()) + ".stopped");
            out.add(p != null && p.alive ? new Launcher.Left(r, handle(p, loop), 0, false, stopped)
                    : reportedLeft(r, p, runDisk.read(base(r.unit(), r.slot()) + ".reported"), stopped));
        }
        // Workers whose record is gone: found among the node's processes (their environment names them).
        for (Proc p : procs.values()) {
            if (p.alive && !recorded.contains(p.pid)) {
                Launcher.Record r = new Launcher.Record(p.record.unit(), p.record.slot(), "", "", p.record.size(), p.record.online());
                out.add(new Launcher.Left(r, handle(p, loop), 0, false, runDisk.has(base(r.unit(), r.slot()) + ".stopped")));
            }
        }
        return out;
    }

    /** A worker that ended: with the code its agent reported, if a master acknowledged it, else its own. */
    private static Launcher.Left reportedLeft(Launcher.Record r, Proc p, byte[] mark, boolean stopped) {
        int own = p == null ? Heartbeat.EXIT_UNKNOWN : p.code;
        if (mark == null) {
            return new Launcher.Left(r, null, own, false, stopped);
        }
        try {
            return new Launcher.Left(r, null, Integer.parseInt(new String(mark, StandardCharsets.UTF_8).trim()), true, stopped);
        } catch (NumberFormatException ex) {
            return new Launcher.Left(r, null, own, true, stopped);
        }
    }

    private static byte[] record(Launcher.Record r, long pid) {
        return ("unit=" + r.unit() + "\nslot=" + r.slot() + "\njobMaster=" + r.jobMaster() + "\nkey=" + r.key() + "\nsize="
                + r.size() + "\nonline=" + r.online() + "\npid=" + pid + "\n").getBytes(StandardCharsets.UTF_8);
    }

    static String base(UnitId unit, int slot) {
        return unit.job() + "." + unit.unit() + "." + slot;
    }
}
