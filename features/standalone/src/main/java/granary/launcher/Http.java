package granary.launcher;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * The runtime's HTTP server: Felix HTTP on Jetty 12, which serves the OSGi Jakarta Servlet
 * Whiteboard. The launcher configures it with framework properties (Felix HTTP reads them when no
 * Config Admin configuration of its own PID exists) and, once it runs, reads the address it
 * really listens on from the endpoint the servlet runtime publishes.
 */
final class Http {

    // Felix HTTP's framework properties (http/README.md of Apache Felix, "Configuration Properties")
    static final String HTTP_ENABLE = "org.apache.felix.http.enable";
    static final String HTTPS_ENABLE = "org.apache.felix.https.enable";
    static final String HOST = "org.apache.felix.http.host";
    static final String HTTP_PORT = "org.osgi.service.http.port";
    static final String HTTPS_PORT = "org.osgi.service.http.port.secure";
    static final String KEYSTORE = "org.apache.felix.https.keystore";
    static final String KEYSTORE_PASSWORD = "org.apache.felix.https.keystore.password";
    static final String KEY_PASSWORD = "org.apache.felix.https.keystore.key.password";

    /** The Jakarta Servlet Whiteboard's runtime service and its endpoint property (OSGi Whiteboard spec, 140.9). */
    static final String RUNTIME = "org.osgi.service.servlet.runtime.HttpServiceRuntime";
    static final String ENDPOINT = "osgi.http.endpoint";

    /** Where to listen: a host (name or address) and a port, 0 for any free port. */
    record Address(String host, int port) {
        /** The default of {@code --listen}: this machine only. */
        static final Address DEFAULT = new Address("127.0.0.1", 7070);

        Address {
            Objects.requireNonNull(host);
        }

        @Override
        public String toString() {
            return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        }
    }

    /**
     * HTTPS instead of HTTP.
     *
     * @param keystore             the server's key and certificate (PKCS12 or JKS)
     * @param keystorePasswordFile a file whose first line is the keystore's password
     * @param keyPasswordFile      a file whose first line is the key's password; null: the keystore's
     */
    record Tls(Path keystore, Path keystorePasswordFile, Path keyPasswordFile) {
        Tls {
            Objects.requireNonNull(keystore);
            Objects.requireNonNull(keystorePasswordFile);
        }
    }

    private Http() {
    }

    /**
     * The framework properties of Felix HTTP for {@code listen} (null: no HTTP at all) and {@code tls}
     * (null: plain HTTP).
     *
     * @throws IOException naming the option and the file if the keystore or a password file cannot be read
     */
    static Map<String, String> frameworkProperties(Address listen, Tls tls) throws IOException {
        Map<String, String> p = new LinkedHashMap<>();
        p.put(HTTP_ENABLE, Boolean.toString(listen != null && tls == null));
        p.put(HTTPS_ENABLE, Boolean.toString(listen != null && tls != null));
        if (listen == null) {
            return p;
        }
        p.put(HOST, listen.host());
        if (tls == null) {
            p.put(HTTP_PORT, Integer.toString(listen.port()));
            return p;
        }
        p.put(HTTPS_PORT, Integer.toString(listen.port()));
        Path keystore = readable("--keystore", tls.keystore());
        p.put(KEYSTORE, keystore.toString());
        String password = firstLine("--keystore-password-file", tls.keystorePasswordFile());
        p.put(KEYSTORE_PASSWORD, password);
        p.put(KEY_PASSWORD, tls.keyPasswordFile() == null ? password : firstLine("--key-password-file", tls.keyPasswordFile()));
        return p;
    }

    private static Path readable(String option, Path file) throws IOException {
        Path abs = file.toAbsolutePath();
        if (!Files.isRegularFile(abs) || !Files.isReadable(abs)) {
            throw new IOException(option + ": cannot read " + abs + (Files.exists(abs) ? "" : " (no such file)"));
        }
        return abs;
    }

    private static String firstLine(String option, Path file) throws IOException {
        Path abs = readable(option, file);
        String line = Files.readString(abs, StandardCharsets.UTF_8).lines().findFirst().orElse("").strip();
        if (line.isEmpty()) {
            throw new IOException(option + ": " + abs + " is empty (its first line is the password)");
        }
        return line;
    }

    /**
     * Fails fast, before the framework starts, if {@code listen} cannot be bound: Felix HTTP would
     * only log a stack trace and run without a server. A free port can still be taken in between;
     * {@link #awaitListening} catches that.
     *
     * @throws IOException naming the address
     */
    static void checkBindable(Address listen, boolean tls) throws IOException {
        if (listen == null || listen.port() == 0) {
            return;
        }
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true);   // as Jetty does: a port in TIME_WAIT is free
            s.bind(new InetSocketAddress(listen.host(), listen.port()));
        } catch (IOException e) {
            throw new IOException("cannot listen on " + (tls ? "https" : "http") + "://" + listen + ": " + e.getMessage(), e);
        }
    }

    /**
     * Waits until the servlet runtime publishes an endpoint of the scheme on which a connection to
     * it is accepted, and returns that endpoint (with the real port when port 0 was asked for).
     * Felix HTTP only logs a port it cannot bind and publishes no endpoint for it; the probe connection
     * proves the port is ours and open.
     *
     * @throws IOException naming the address if there is no such endpoint before the deadline
     */
    static URI awaitListening(BundleContext context, Address listen, boolean tls, Duration timeout)
            throws IOException, InterruptedException {
        String scheme = tls ? "https" : "http";
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> seen = List.of();
        while (System.nanoTime() < deadline) {
            seen = endpoints(context);
            for (String e : seen) {
                URI uri = URI.create(e);
                if (scheme.equals(uri.getScheme()) && uri.getPort() > 0
                        && (listen.port() == 0 || uri.getPort() == listen.port()) && accepts(listen.host(), uri.getPort())) {
                    return URI.create(scheme + "://" + new Address(listen.host(), uri.getPort()));
                }
            }
            Thread.sleep(50);   // outside the framework: poll the registry, with a deadline
        }
        throw new IOException("cannot listen on " + scheme + "://" + listen + " (the address is in use or not this "
                + "machine's); no " + scheme + " endpoint within " + timeout.toSeconds() + " s, endpoints published: " + seen);
    }

    /** Every endpoint the servlet runtimes publish. */
    static List<String> endpoints(BundleContext context) {
        List<String> out = new ArrayList<>();
        try {
            ServiceReference<?>[] refs = context.getAllServiceReferences(RUNTIME, null);
            for (ServiceReference<?> r : refs == null ? new ServiceReference<?>[0] : refs) {
                Object value = r.getProperty(ENDPOINT);
                if (value instanceof String s) {
                    out.add(s);
                } else if (value instanceof String[] a) {
                    out.addAll(List.of(a));
                } else if (value instanceof Collection<?> c) {
                    c.forEach(o -> out.add(String.valueOf(o)));
                }
            }
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);   // no filter given
        }
        return out;
    }

    private static boolean accepts(String host, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(host, port), 2000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
