package granary.policy.quota.api;

import granary.api.model.Resources;

/**
 * An amount of quota: a number of workers (slots), the form of a cluster of equal workers, or a resource vector
 * for a general cluster. A table uses one form throughout. In worker form a group's usage is the
 * slots it holds; in resource form it is the resources it holds, compared per resource.
 */
public record Quota(long workers, Resources resources) {

    public static Quota workers(long n) {
        return new Quota(n, null);
    }

    public static Quota of(Resources r) {
        return new Quota(-1, r);
    }

    public boolean isWorkers() {
        return resources == null;
    }

    public boolean isNegative() {
        return isWorkers() ? workers < 0 : !resources.isNonNegative();
    }

    /** True if {@code this <= other} (per resource in resource form). */
    public boolean atMost(Quota other) {
        return isWorkers() ? workers <= other.workers : resources.fitsIn(other.resources);
    }

    public Quota plus(Quota o) {
        return isWorkers() ? workers(workers + o.workers) : of(resources.plus(o.resources));
    }

    @Override
    public String toString() {
        return isWorkers() ? Long.toString(workers) : resources.toString();
    }
}
