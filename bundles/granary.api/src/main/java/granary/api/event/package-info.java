/** Input events of the scheduling engine and the grant / revoke events it emits. */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.3.0")
package granary.api.event;
