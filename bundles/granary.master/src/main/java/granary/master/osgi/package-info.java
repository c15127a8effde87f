/**
 * The master in the OSGi runtime: a DS component over the engine's Scheduler service that serves
 * the protocol through the Jakarta Servlet Whiteboard (Felix HTTP on Jetty) and adds the console
 * commands {@code granary:agents} and {@code granary:jobmasters}. Not exported.
 */
package granary.master.osgi;
