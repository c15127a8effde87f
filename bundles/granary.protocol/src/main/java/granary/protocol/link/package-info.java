/**
 * The protocol over HTTP: the {@link granary.protocol.link.Endpoint} a server side offers (the
 * master; an agent for plans), a small HTTP server for it on the JDK's own server
 * ({@link granary.protocol.link.JdkHttpServer}, used by agents, tools and tests; the master in the
 * OSGi runtime is served by Jetty instead), the client side — {@link granary.protocol.link.Link} on
 * a {@link granary.protocol.link.Loop}: one message at a time, exactly once, re-sync, several
 * masters, fencing; and {@link granary.protocol.link.SyncLink}, a blocking facade over it for tests,
 * tools and benchmarks — and the tokens that authenticate each peer
 * ({@link granary.protocol.link.Tokens}). Plain Java on the JDK. See docs/protocol.md, "Transport".
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("2.0.0")
package granary.protocol.link;
