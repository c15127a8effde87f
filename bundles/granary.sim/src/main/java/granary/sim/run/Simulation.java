package granary.sim.run;

import granary.sim.trace.TraceLimits;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import granary.api.model.InvalidRequestException;
import granary.api.model.ManualClock;
import granary.api.model.NodeSpec;
import granary.api.event.Receipt;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.event.ClockTick;
import granary.api.event.GrantReleased;
import granary.api.event.Granted;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.OutputEvent;
import granary.api.event.PolicyInstalled;
import granary.api.event.Revoked;
import granary.api.event.UnitRequested;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.sim.workload.SimJob;
import granary.sim.workload.SimUnit;
import granary.sim.workload.Workload;

/**
 * One replay: the real engine with the set's real policies, driven in virtual time by a discrete
 * event loop. The simulator plays the job masters and the agents — it submits each job (and later
 * units) at its arrival time, and gives every granted slot back ({@code GrantReleased}) when its
 * task's run time is over; a revoked slot's task is lost and its slot waits again — and it ticks the
 * clock every {@code tickMs} while something waits, so time-driven policies act. All scheduling is
 * the engine's. Events at the same time: releases first, then arrivals (in trace order).
 */
public final class Simulation {

    private static final int RELEASE = 0;
    private static final int ARRIVAL = 1;

    private record Event(long time, int kind, long seq, UnitTrack.Batch batch, JobTrack job, List<UnitTrack> units) {
    }

    private final Workload workload;
    private final List<NodeSpec> nodes;
    private final PolicySetup.Prepared policies;
    private final SimSettings settings;
    private final Progress progress;
    private final int index;
    private final int sets;

    private final ManualClock clock;
    private final Engine engine;
    /** By time, then releases before arrivals, then in the order added (EventQueue). */
    private final EventQueue<Event> events = new EventQueue<>(Event::time, Event::kind, 2);
    private final Map<UnitId, UnitTrack> tracks = new HashMap<>();
    private final List<JobTrack> jobs = new ArrayList<>();
    private final Map<String, Long> refusals = new TreeMap<>();
    private final List<String> refusalExamples = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    /** Whether the run has paused its clock ticks once (noted once). */
    private boolean ticksPaused;
    private Recorder recorder;
    private long seq;
    private long lastProgress;
    private long maxSamples = TraceLimits.MAX_SAMPLES;
    private long arrived;

    public Simulation(Workload workload, List<NodeSpec> nodes, PolicySetup.Prepared policies, SimSettings settings,
                      Progress progress, int index, int sets) {
        this.workload = workload;
        this.nodes = nodes;
        this.policies = policies;
        this.settings = settings;
        this.progress = progress;
        this.index = index;
        this.sets = sets;
        this.clock = new ManualClock(settings.startEpochMs());
        this.engine = new Engine(clock, new EngineOptions(policies.selection(), List.of(), settings.checkInvariants()));
        this.notes.addAll(policies.notes());
    }

    /** Caps the time-series samples (tests; {@link TraceLimits#MAX_SAMPLES} by default). */
    Simulation maxSamples(long n) {
        maxSamples = n;
        return this;
    }

    /** Runs the replay to its end. */
    public RunResult run() {
        long wallStart = System.nanoTime();
        setUp();
        Map<String, String> effective = new TreeMap<>(engine.view().status().policies());
        loop();
        long end = clock.millis();
        recorder.finish(end);
        notes.addAll(recorder.sampleNotes());
        double wall = (System.nanoTime() - wallStart) / 1e9;
        return Outcome.of(this, effective, end, wall);
    }

    private void setUp() {
        for (PolicySource.Created c : policies.policies()) {
            handle(new PolicyInstalled(c.policy(), c.origin()));
        }
        for (NodeSpec n : nodes) {
            handle(new NodeAdded(n));
        }
        recorder = new Recorder(engine.view(), settings.startEpochMs(), sampleMs(), settings.timeoutMs(),
                policies.declarations());
        recorder.maxSamples(maxSamples);
        List<granary.api.spi.Admission> admissions = new ArrayList<>();
        for (PolicySource.Created c : policies.policies()) {
            if (c.policy() instanceof granary.api.spi.Admission a) {
                admissions.add(a);
            }
        }
        recorder.admissions(admissions);
        engine.subscribe(this::decided);
        for (SimJob j : workload.jobs()) {
            JobTrack t = new JobTrack(j);
            jobs.add(t);
            Map<Long, List<UnitTrack>> byTime = new TreeMap<>();
            for (UnitTrack u : t.units.values()) {
                if (u.depsLeft == 0) {
                    byTime.computeIfAbsent(j.gang() ? j.arrivalMs() : u.unit.arrivalMs(), k -> new ArrayList<>()).add(u);
                }
            }
            byTime.forEach((time, us) -> push(new Event(time + settings.startEpochMs(), ARRIVAL, seq++, null, t, us)));
        }
    }

    private long sampleMs() {
        long span = 0;
        for (SimJob j : workload.jobs()) {
            for (SimUnit u : j.units()) {
                span = Math.max(span, u.arrivalMs() + u.durationMs());
            }
        }
        if (settings.sampleMs() > 0) {
            // at most half the sample cap over the trace's span: the other half is for a backlog draining after it
            long planned = maxSamples / 2;
            if (span / settings.sampleMs() > planned) {
                long widened = ((span + planned - 1) / planned + 999) / 1000 * 1000;
                notes.add("--sample-seconds " + settings.sampleMs() / 1000.0 + ": " + span / settings.sampleMs()
                        + " samples over the trace's span of " + span / 1000 + " s, more than " + planned + " (half the cap of "
                        + maxSamples + "): sampled every " + widened / 1000 + " s");
                return widened;
            }
            return settings.sampleMs();
        }
        for (long s : new long[] {1, 5, 10, 30, 60, 300, 600, 1800, 3600, 21_600}) {
            if (span / (s * 1000) <= 2500) {
                return s * 1000;
            }
        }
        return 86_400_000L;
    }

    // ---- the event loop ----

    private void loop() {
        long lastChange = clock.millis();
        long lastArrival = workload.jobs().isEmpty() ? 0 : workload.jobs().get(workload.jobs().size() - 1).arrivalMs();
        long iterations = 0;
        while (true) {
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new ReplayCancelledException("replay cancelled at t=" + (clock.millis() - settings.startEpochMs()) / 1000
                        + "s of set " + policies.label() + " (" + arrived + " of " + workload.jobs().size() + " jobs arrived)");
            }
            Event next = events.peek();
            long tNext = next == null ? Long.MAX_VALUE : next.time;
            if (recorder.waitingUnits > 0 && settings.tickMs() > 0) {
                long tick = (Math.floorDiv(clock.millis() - settings.startEpochMs(), settings.tickMs()) + 1) * settings.tickMs()
                        + settings.startEpochMs();
                // nothing changed for the idle limit while units wait: stop ticking until the next
                // arrival or end (or, with none left, stop), so that a wait across a long gap of a
                // trace does not tick once a tick for years
                boolean idle = tick - lastChange > settings.idleLimitMs();
                if (idle && next != null && !ticksPaused) {
                    ticksPaused = true;
                    notes.add("t=" + (tick - settings.startEpochMs()) / 1000 + "s: clock ticks paused until the next "
                            + "arrival or end: nothing changed for the idle limit of " + settings.idleLimitMs() / 1000
                            + " s while units waited (--idle-limit-seconds)");
                }
                if (tick < tNext && !idle) {
                    moveTo(tick);
                    long grants = recorder.slotGrants;
                    handle(new ClockTick());
                    if (recorder.slotGrants != grants) {
                        lastChange = tick;
                    }
                    continue;
                }
            }
            if (next == null) {
                return;
            }
            events.poll();
            moveTo(next.time);
            lastChange = next.time;
            if (next.kind == RELEASE) {
                release(next.batch);
            } else {
                arrive(next.job, next.units);
            }
            if ((++iterations & 0xfff) == 0) {
                report(lastArrival);
            }
        }
    }

    private void moveTo(long t) {
        recorder.advance(t);
        clock.set(t);
    }

    private void report(long lastArrival) {
        long now = System.nanoTime();
        if (now - lastProgress > 200_000_000L) {
            lastProgress = now;
            progress.update(policies.label(), index, sets, clock.millis() - settings.startEpochMs(), lastArrival, arrived,
                    workload.jobs().size());
        }
    }

    private void push(Event e) {
        events.add(e);
    }

    private Receipt handle(InputEvent e) {
        Receipt r = engine.handle(e);
        for (String note : r.notes()) {
            if (note.contains("failed") || note.contains("aborted")) {
                notes.add("t=" + (clock.millis() - settings.startEpochMs()) / 1000 + "s: " + note);
            }
        }
        if (recorder != null) {
            recorder.refresh();
        }
        return r;
    }

    // ---- job masters: arrivals ----

    private void arrive(JobTrack job, List<UnitTrack> units) {
        if (job.refusal != null) {
            units.forEach(u -> u.refused = true);
            return;
        }
        long now = clock.millis();
        if (job.group == null) {
            job.group = engine.view().resolveGroup(job.job.group());
        }
        for (UnitTrack u : units) {
            u.requestedAt = now;
            u.demand.addLast(new long[] {now, u.remainingTasks});
            tracks.put(u.id, u);
            recorder.desireChanged(u, 0, u.desire());
        }
        if (engine.view().job(job.job.id()) == null) {
            List<UnitSpec> specs = units.stream().map(u -> u.unit.spec()).toList();
            if (submit(new JobSubmitted(job.job.spec(specs)), units) && !job.submitted()) {
                job.submittedAt = now;
                recorder.jobsSubmitted++;
                arrived++;
            } else if (!job.submitted()) {
                job.refusal = "refused";
                arrived++;
            }
        } else {
            for (UnitTrack u : units) {
                submit(new UnitRequested(job.job.id(), u.unit.spec()), List.of(u));
            }
        }
    }

    /** Submits; a refusal marks the units refused and is counted by its reason. */
    private boolean submit(InputEvent e, List<UnitTrack> units) {
        try {
            handle(e);
            return true;
        } catch (InvalidRequestException refused) {
            String reason = refused.problems().isEmpty() ? "refused" : refused.problems().get(0).field();
            refusals.merge(reason, 1L, Long::sum);
            if (refusalExamples.size() < 5) {
                refusalExamples.add(refused.getMessage());
            }
            for (UnitTrack u : units) {
                recorder.desireChanged(u, u.desire(), 0);
                u.refused = true;
                tracks.remove(u.id);
            }
            return false;
        }
    }

    // ---- agents: grants, revocations, releases ----

    private void decided(OutputEvent e) {
        long now = clock.millis();
        if (e instanceof Granted g) {
            UnitTrack u = track(g.unit());
            int before = u.desire();
            UnitTrack.Batch b = new UnitTrack.Batch(u, g.node(), now, g.slots());
            u.running.computeIfAbsent(g.node(), k -> new ArrayDeque<>()).addLast(b);
            u.granted += g.slots();
            recorder.granted(u, g.slots(), now);
            recorder.desireChanged(u, before, u.desire());
            push(new Event(now + u.unit.durationMs(), RELEASE, seq++, b, null, null));
        } else if (e instanceof Revoked r) {
            UnitTrack u = track(r.unit());
            int before = u.desire();
            double lost = takeNewest(u, r.node(), r.slots(), now);
            u.granted -= r.slots();
            recorder.revoked(u, r.slots(), lost, now);
            recorder.desireChanged(u, before, u.desire());
        }
    }

    private UnitTrack track(UnitId id) {
        UnitTrack u = tracks.get(id);
        if (u == null) {
            throw new IllegalStateException("the engine decided about unit " + id + ", which the simulator did not submit");
        }
        return u;
    }

    /** A revocation kills the newest tasks on the node (they lose the least work); returns slot-ms lost. */
    private static double takeNewest(UnitTrack u, String node, int slots, long now) {
        ArrayDeque<UnitTrack.Batch> q = u.running.get(node);
        double lost = 0;
        int left = slots;
        while (left > 0 && q != null && !q.isEmpty()) {
            UnitTrack.Batch b = q.peekLast();
            int take = Math.min(left, b.slots);
            b.slots -= take;
            left -= take;
            lost += (double) take * (now - b.start);
            if (b.slots == 0) {
                q.pollLast();
            }
        }
        return lost;
    }

    private void release(UnitTrack.Batch b) {
        if (b.slots == 0) {
            return;   // revoked before its end
        }
        UnitTrack u = b.unit;
        int k = b.slots;
        b.slots = 0;
        u.running.get(b.node).remove(b);
        u.granted -= k;
        u.remainingTasks -= k;
        recorder.released(u, k, clock.millis());
        handle(new GrantReleased(u.id, b.node, k));
        if (u.remainingTasks == 0) {
            finished(u);
        }
    }

    private void finished(UnitTrack u) {
        u.finished = true;
        tracks.remove(u.id);
        JobTrack job = u.job;
        job.unfinished--;
        List<UnitTrack> ready = new ArrayList<>();
        for (UnitTrack d : job.dependents.getOrDefault(u.unit.name(), List.of())) {
            if (--d.depsLeft == 0) {
                ready.add(d);
            }
        }
        Map<Long, List<UnitTrack>> byTime = new LinkedHashMap<>();
        for (UnitTrack d : ready) {
            byTime.computeIfAbsent(Math.max(clock.millis(), d.unit.arrivalMs() + settings.startEpochMs()), k -> new ArrayList<>()).add(d);
        }
        byTime.forEach((t, us) -> push(new Event(t, ARRIVAL, seq++, null, job, us)));
    }

    // ---- for Outcome ----

    List<JobTrack> jobTracks() {
        return jobs;
    }

    Recorder recorder() {
        return recorder;
    }

    Engine engine() {
        return engine;
    }

    SimSettings settings() {
        return settings;
    }

    PolicySetup.Prepared prepared() {
        return policies;
    }

    List<String> notes() {
        return notes;
    }

    Map<String, Long> refusals() {
        return refusals;
    }

    List<String> refusalExamples() {
        return refusalExamples;
    }
}
