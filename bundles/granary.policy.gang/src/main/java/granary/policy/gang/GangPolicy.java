package granary.policy.gang;

import java.util.List;
import java.util.Map;

import granary.api.model.JobSpec;
import granary.api.spi.EngineView;
import granary.api.spi.GangPlacement;
import granary.api.spi.GangPlan;
import granary.api.spi.PlacementContext;
import granary.api.spi.SubmitFilter;
import granary.api.spi.UnitView;
import granary.api.spi.Verdict;

/**
 * All-or-nothing (gang) scheduling, docs/scheduling.md, "Gangs".
 *
 * <ul>
 *   <li><b>Gang placement</b> — plans a gang (one all-or-nothing unit, or every waiting unit of a
 *       gang job) whole; the engine checks the plan and grants all of it in one step, or nothing.
 *       Locality preferences are walked MACHINE, ROOM, CLUSTER; inside each step the nodes are
 *       taken by {@link Packing} — best fit by default, so that whole nodes stay free. See
 *       {@link GangPlanner} for exactly how it decides.</li>
 *   <li><b>Submit filter</b> — refuses at once a gang that can never fit: more than the whole
 *       cluster has of a resource, or more slots of a unit than the nodes it may use can hold
 *       together (see {@link NeverFits}). A queue's maximum is the queues and quota policies'
 *       business.</li>
 * </ul>
 *
 * Stateless between calls: nothing to drop on detach, and a gang is never half placed whatever
 * happens to this policy (the engine grants a plan whole or not at all).
 */
public class GangPolicy implements GangPlacement, SubmitFilter {

    /** The policy's name: console, status and HTTP use it. */
    public static final String NAME = "gang";

    private final Packing packing;
    private final boolean refuseNeverFitting;

    /** Best fit, refusing gangs that can never fit. */
    public GangPolicy() {
        this(Packing.BEST_FIT, true);
    }

    /**
     * @param packing            how nodes are chosen inside a locality step
     * @param refuseNeverFitting refuse at submit a gang larger than the cluster (false: let it wait,
     *                           e.g. for a cluster that grows on demand)
     */
    public GangPolicy(Packing packing, boolean refuseNeverFitting) {
        if (packing == null) {
            throw new IllegalArgumentException("gang: packing is required, one of " + List.of(Packing.values()));
        }
        this.packing = packing;
        this.refuseNeverFitting = refuseNeverFitting;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public GangPlan plan(List<? extends UnitView> gang, PlacementContext ctx) {
        return new GangPlanner(packing, ctx).plan(gang);
    }

    @Override
    public Verdict check(JobSpec job, EngineView view) {
        return refuseNeverFitting ? NeverFits.check(job, view.cluster()) : Verdict.ALLOW;
    }

    public Packing packing() {
        return packing;
    }

    @Override
    public Map<String, String> status() {
        return Map.of("packing", packing.name(), "refuseNeverFitting", Boolean.toString(refuseNeverFitting));
    }
}
