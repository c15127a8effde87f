/** Reservation against starvation (spec §9): the report a reservation policy gives. */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package granary.policy.reservation.api;
