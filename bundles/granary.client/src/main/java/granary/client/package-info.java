/**
 * The job master side of Granary's protocol as a library: {@link granary.client.JobMasterClient}
 * submits jobs to the master, changes their desired counts, hears through a
 * {@link granary.client.Listener} where its units hold slots and which of its workers ended, sends
 * the agents plans for those slots, and re-syncs by itself after the master restarted. Plain Java
 * on the JDK and {@code granary.protocol}. See bundles/granary.client/README.md.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.1.0")
package granary.client;
