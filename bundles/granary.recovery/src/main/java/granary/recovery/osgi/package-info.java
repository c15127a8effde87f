/** The recovery engine's DS component: the {@link granary.recovery.Recovery} service the master references. */
package granary.recovery.osgi;
