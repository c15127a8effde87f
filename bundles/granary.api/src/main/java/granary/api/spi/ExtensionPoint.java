package granary.api.spi;

import java.util.EnumSet;
import java.util.Set;

/**
 * The engine's extension points. On an <em>exclusive</em> point exactly one policy is in effect and
 * alternatives replace each other (FIFO / FAIR / SubmitWindow for unit order). On a
 * <em>composable</em> point every active policy takes part (quota admission and reservation node
 * filters together).
 *
 * <p>If no policy is in effect on {@link #UNIT_ORDER} or {@link #GANG_PLACEMENT}, the scheduling
 * that needs it waits (reported in status) and resumes when one is installed. {@link #GROUP_ORDER}
 * and {@link #GROUP_RESOLVER} always have the engine's built-ins ({@code hunger}, {@code flat}) to
 * fall back on.
 */
public enum ExtensionPoint {
    /** Resolves the group a job names to the full name of its queue. Exclusive; built-in default {@code flat}. */
    GROUP_RESOLVER("group-resolver", true, GroupResolver.class),
    /** Rejects, at submission, work that can never be scheduled. Composable. */
    SUBMIT_FILTER("submit-filter", false, SubmitFilter.class),
    /** Order in which group queues are served. Exclusive; built-in default {@code hunger}. */
    GROUP_ORDER("group-order", true, GroupOrder.class),
    /** Order of waiting units inside a group queue. Exclusive; required. */
    UNIT_ORDER("unit-order", true, UnitOrder.class),
    /** How many slots a unit may be granted now (quota, limits). Composable. */
    ADMISSION("admission", false, Admission.class),
    /** Whether a unit may use a node now (locks, partitions). Composable. */
    NODE_FILTER("node-filter", false, NodeFilter.class),
    /** Where an all-or-nothing gang goes, whole. Exclusive; required for all-or-nothing units. */
    GANG_PLACEMENT("gang-placement", true, GangPlacement.class),
    /** Work done before and after allocation in every cycle (elect, reserve, preempt, bill). Composable. */
    CYCLE_ACTION("cycle-action", false, CycleAction.class);

    private final String id;
    private final boolean exclusive;
    private final Class<? extends Policy> type;

    ExtensionPoint(String id, boolean exclusive, Class<? extends Policy> type) {
        this.id = id;
        this.exclusive = exclusive;
        this.type = type;
    }

    /** The point's name in console and status output, e.g. {@code unit-order}. */
    public String id() {
        return id;
    }

    public boolean exclusive() {
        return exclusive;
    }

    /** The interface a policy implements to take part at this point. */
    public Class<? extends Policy> type() {
        return type;
    }

    /** The points a policy implements. */
    public static Set<ExtensionPoint> of(Policy policy) {
        return of(policy.getClass());
    }

    /** The points a policy class implements. */
    public static Set<ExtensionPoint> of(Class<?> policyClass) {
        Set<ExtensionPoint> points = EnumSet.noneOf(ExtensionPoint.class);
        for (ExtensionPoint p : values()) {
            if (p.type.isAssignableFrom(policyClass)) {
                points.add(p);
            }
        }
        return points;
    }

    /** The point with the given {@link #id}, or null. */
    public static ExtensionPoint byId(String id) {
        for (ExtensionPoint p : values()) {
            if (p.id.equals(id)) {
                return p;
            }
        }
        return null;
    }
}
