package granary.sim.trace;

/**
 * What a reader may need to know about the replay.
 *
 * @param nodeMemMb         memory of the largest node of the cluster in MiB: normalized memory
 *                          (Alibaba v2017, v2018) is scaled by it; 0 if unknown
 * @param gangPlacement     a gang-placement policy is available, so all-or-nothing jobs can run
 * @param seed              the replay's seed (synthetic workloads)
 */
public record TraceContext(long nodeMemMb, boolean gangPlacement, long seed) {
}
