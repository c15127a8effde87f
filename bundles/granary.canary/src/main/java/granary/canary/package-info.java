/**
 * The shadow canary, plain Java: a candidate policy set run in a second engine beside the live one,
 * fed the same input events on the live engine's thread, its decisions recorded and never applied;
 * a side-by-side report; atomic promotion with automatic rollback on a guard metric
 * (docs/canary.md). Private to the bundle: the console reaches it through the Gogo commands of
 * {@code granary.canary.osgi}.
 */
package granary.canary;
