package granary.canary;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import granary.api.event.GrantAdopted;
import granary.api.event.GrantReleased;
import granary.api.event.InputEvent;
import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.event.NodeBlacklisted;
import granary.api.event.OutputEvent;
import granary.api.event.PolicyActivated;
import granary.api.event.PolicyDeactivated;
import granary.api.event.PolicyFailed;
import granary.api.event.PolicyInstalled;
import granary.api.event.PolicyReconfigured;
import granary.api.event.PolicyUninstalled;
import granary.api.event.UnitDesireChanged;
import granary.api.event.UnitRequested;
import granary.api.model.Allocation;
import granary.api.model.Clock;
import granary.api.model.InvalidRequestException;
import granary.api.model.JobSpec;
import granary.api.model.NodeSpec;
import granary.api.spi.EngineView;
import granary.api.spi.JobView;
import granary.api.spi.NodeView;
import granary.api.spi.UnitView;
import granary.engine.Engine;
import granary.engine.EngineOptions;

/**
 * The candidate's engine: a second {@link Engine} with fresh policy instances, seeded from the live
 * state and then fed the live engine's input events; its decisions go nowhere (docs/canary.md,
 * "The shadow"). Runs on the live engine's thread, never on its own.
 */
final class Shadow {

    /** How many divergence messages are kept (the count is kept whole). */
    private static final int KEPT = 10;

    private final Engine engine;
    private final List<CandidatePolicies.Made> made;
    private long divergences;
    private final List<String> messages = new ArrayList<>();

    private Shadow(Engine engine, List<CandidatePolicies.Made> made) {
        this.engine = engine;
        this.made = made;
    }

    /**
     * Seeds a shadow from the live view (docs/canary.md, "Starting from the live state"): nodes,
     * then every live unit in request order with its desire, then the grants live holds (adopted),
     * all with nothing selected so that nothing is decided meanwhile; then the candidate's instances
     * are installed and selected, which is the shadow's first decision.
     */
    static Shadow seed(EngineView live, Clock clock, List<String> selection, List<String> fallback,
                       CandidatePolicies source) {
        List<CandidatePolicies.Made> made = new ArrayList<>();
        try {
            Set<String> names = new LinkedHashSet<>(selection);
            fallback.stream().filter(source.names()::contains).forEach(names::add);
            for (String n : names) {
                made.add(source.make(n));
            }
            Engine engine = new Engine(clock, new EngineOptions(List.of(), List.of(), false));
            Shadow s = new Shadow(engine, made);
            s.copy(live);
            for (CandidatePolicies.Made m : made) {
                engine.handle(new PolicyInstalled(m.policy(), m.origin()));
            }
            engine.configure(new EngineOptions(selection, fallback, false));
            return s;
        } catch (RuntimeException e) {
            made.forEach(m -> m.release().run());
            throw e;
        }
    }

    private void copy(EngineView live) {
        for (NodeView n : live.cluster().nodes()) {
            engine.handle(new NodeAdded(new NodeSpec(n.name(), n.room(), n.capacity(), n.labels())));
            if (n.blacklisted()) {
                engine.handle(new NodeBlacklisted(n.name(), true));
            }
        }
        List<UnitView> units = new ArrayList<>();
        live.jobs().forEach(j -> j.units().stream().filter(u -> u.live() && u.desired() > 0).forEach(units::add));
        units.sort(Comparator.comparingLong(UnitView::sequence));
        Set<String> jobs = new HashSet<>();
        for (UnitView u : units) {
            JobView j = u.job();
            if (j.gang()) {
                if (jobs.add(j.id())) {   // a gang is submitted whole: its units form one gang
                    engine.handle(new JobSubmitted(new JobSpec(j.id(), j.group(), j.user(), j.productionLevel(), true,
                            j.units().stream().filter(x -> x.live() && x.desired() > 0)
                                    .map(x -> x.spec().withDesired(x.desired())).toList())));
                }
            } else if (jobs.add(j.id())) {
                engine.handle(new JobSubmitted(new JobSpec(j.id(), j.group(), j.user(), j.productionLevel(), false,
                        List.of(u.spec().withDesired(u.desired())))));
            } else {
                engine.handle(new UnitRequested(j.id(), u.spec().withDesired(u.desired())));
            }
        }
        for (UnitView u : units) {
            for (Allocation a : u.grants()) {
                engine.handle(new GrantAdopted(u.id(), a.node(), a.slots()));
            }
        }
    }

    /**
     * Feeds one event live accepted; returns the shadow's decisions. Policy events are live's own
     * instances' business and are not fed. A release is mapped (see {@link #release}); any other
     * event the shadow refuses is counted as a divergence.
     */
    List<OutputEvent> feed(InputEvent e) {
        if (e instanceof PolicyInstalled || e instanceof PolicyUninstalled || e instanceof PolicyActivated
                || e instanceof PolicyDeactivated || e instanceof PolicyReconfigured || e instanceof PolicyFailed) {
            return List.of();
        }
        if (e instanceof GrantReleased r) {
            return release(r);
        }
        return handle(e);
    }

    private List<OutputEvent> handle(InputEvent e) {
        try {
            return engine.handle(e).outputs();
        } catch (InvalidRequestException refused) {
            diverged("refused " + e + ": " + refused.getMessage());
            return List.of();
        }
    }

    /**
     * Live gave back slots of a unit on a node (docs/canary.md, "Releases"). Where the shadow's unit
     * holds as many there, the same release; else that many of its slots, oldest grants first on
     * whatever nodes; what it does not hold at all is taken off its desire (the work is done either
     * way), and the difference is counted as a divergence.
     */
    private List<OutputEvent> release(GrantReleased r) {
        UnitView u = engine.view().unit(r.unit());
        if (u == null) {
            diverged("release of " + r.slots() + " slots of " + r.unit() + ": the shadow has no such unit");
            return List.of();
        }
        if (u.allocations().getOrDefault(r.node(), 0) >= r.slots()) {
            return handle(r);
        }
        List<OutputEvent> out = new ArrayList<>();
        int left = r.slots();
        List<Allocation> held = new ArrayList<>(u.grants());
        for (Allocation a : held) {
            if (left == 0) {
                break;
            }
            int k = Math.min(left, a.slots());
            out.addAll(handle(new GrantReleased(r.unit(), a.node(), k)));
            left -= k;
        }
        if (left > 0) {
            UnitView now = engine.view().unit(r.unit());
            if (now != null) {
                out.addAll(handle(new UnitDesireChanged(r.unit(), Math.max(now.granted(), now.desired() - left))));
            }
            diverged("release of " + r.slots() + " slots of " + r.unit() + " on " + r.node() + ": the shadow held only "
                    + (r.slots() - left) + "; " + left + " taken off its desire");
        } else {
            diverged("release of " + r.slots() + " slots of " + r.unit() + " on " + r.node()
                    + ": the shadow held them elsewhere, released oldest first");
        }
        return out;
    }

    private void diverged(String message) {
        divergences++;
        if (messages.size() < KEPT) {
            messages.add(message);
        }
    }

    EngineView view() {
        return engine.view();
    }

    long divergences() {
        return divergences;
    }

    List<String> messages() {
        return List.copyOf(messages);
    }

    /** Gives every instance back. */
    void close() {
        made.forEach(m -> m.release().run());
    }
}
