/**
 * The reservation in force, as the policy's tests read it. Private to the bundle (not exported): the
 * console, the simulator and the HTTP API read the policy's {@code reservations} report instead.
 * Kept apart from the implementation package only until the shared test kit no longer names it.
 */
package granary.policy.reservation.api;
