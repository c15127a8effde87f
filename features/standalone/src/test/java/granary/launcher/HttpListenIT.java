package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.link.Tokens;

/**
 * The runnable jar's HTTP server (Felix HTTP on Jetty 12) and its options, on this run's framework:
 * it listens where {@code --listen} says, on loopback only, says where on standard error, serves
 * Jetty's 404 for an unknown path, over HTTPS with {@code --keystore}; a port in use stops the start;
 * {@code --issue-token} prints a token of the secret file.
 */
class HttpListenIT {

    @TempDir
    Path tmp;

    @Test
    void listensOnLoopbackOnAFreePortAndAnswers404() throws Exception {
        try (ListeningRuntime r = ListeningRuntime.start(tmp, "--demo=false", "--piped", "--listen=127.0.0.1:0")) {
            int port = r.awaitListening("http");
            HttpResponse<String> response = client(HttpClient.newBuilder())
                    .send(get("http://127.0.0.1:" + port + "/nothing-here"), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, response.statusCode(), response::body);
            for (InetAddress other : otherAddresses()) {
                assertFalse(accepts(other, port), "listens on 127.0.0.1 only, not on " + other);
            }
            ChildProcess.Result done = r.finish();
            assertEquals(0, done.exit(), done::toString);
            assertFalse(done.out().contains("jetty") || done.out().contains("INFO"), "nothing of Jetty on stdout: " + done);
            assertEquals(1, done.err().lines().count(), "one line on stderr, the address: " + done);
        }
    }

    /**
     * The plain port speaks HTTP/2 too (docs/protocol.md, "Transport"): a client that opens with the
     * HTTP/2 preface gets the server's settings back, and the JDK's client upgrading from HTTP/1.1
     * gets its answer over HTTP/2; HTTP/1.1 alone is still served (the test above).
     */
    @Test
    void speaksHttp2InClearTextOnThePlainPort() throws Exception {
        try (ListeningRuntime r = ListeningRuntime.start(tmp, "--demo=false", "--piped", "--listen=127.0.0.1:0")) {
            int port = r.awaitListening("http");
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5000);
                s.setSoTimeout(10_000);
                OutputStream out = s.getOutputStream();
                out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                out.write(new byte[] {0, 0, 0, 4, 0, 0, 0, 0, 0}); // an empty SETTINGS frame
                out.flush();
                byte[] frame = s.getInputStream().readNBytes(9);
                assertEquals(9, frame.length, "a frame header back");
                assertEquals(4, frame[3], "the server's first frame is its SETTINGS");
            }
            HttpResponse<String> response = client(HttpClient.newBuilder().version(HttpClient.Version.HTTP_2))
                    .send(get("http://127.0.0.1:" + port + "/nothing-here"), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, response.statusCode(), response::body);
            assertEquals(HttpClient.Version.HTTP_2, response.version());
            assertEquals(0, r.finish().exit());
        }
    }

    @Test
    void servesHttpsWithTheKeystore() throws Exception {
        Path keystore = tmp.resolve("server.p12");
        keytool("-genkeypair", "-alias", "granary", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-keystore", keystore.toString(), "-storetype", "PKCS12", "-storepass", "s3cret!", "-keypass", "s3cret!",
                "-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1");
        Files.writeString(tmp.resolve("password"), "s3cret!\n");
        try (ListeningRuntime r = ListeningRuntime.start(tmp, "--demo=false", "--piped", "--listen=127.0.0.1:0",
                "--keystore=" + keystore, "--keystore-password-file=" + tmp.resolve("password"))) {
            int port = r.awaitListening("https");
            HttpResponse<String> response = client(HttpClient.newBuilder().sslContext(trusting(keystore, "s3cret!")))
                    .send(get("https://127.0.0.1:" + port + "/nothing-here"), HttpResponse.BodyHandlers.ofString());
            assertEquals(404, response.statusCode(), response::body);
            assertEquals(0, r.finish().exit());
        }
    }

    @Test
    void aPortInUseStopsTheStartNamingTheAddress() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ChildProcess.Result r = ChildProcess.run(It.runnableJar(), tmp, "granary:status\n", "--demo=false",
                    "--listen=127.0.0.1:" + taken.getLocalPort());
            assertEquals(Launcher.EXIT_STARTUP, r.exit(), r::toString);
            assertTrue(r.err().contains("Error: the runtime did not start: cannot listen on http://127.0.0.1:"
                    + taken.getLocalPort()), r::toString);
            assertFalse(r.err().contains("\tat "), "no stack trace: " + r);
        }
    }

    /**
     * A missing secret file is an error unless {@code --create-secret} (a mistyped path must not make
     * tokens no master takes); a secret others can read is warned about (docs/security.md).
     */
    @Test
    void issuesATokenTheSecretVerifies() throws Exception {
        Path secret = tmp.resolve("master.secret");
        ChildProcess.Result missing = ChildProcess.run(It.runnableJar(), tmp, "", "--issue-token=agent/n1", "--secret=" + secret);
        assertEquals(Launcher.EXIT_STARTUP, missing.exit(), missing::toString);
        assertTrue(missing.err().contains("master.secret does not exist") && missing.err().contains("--create-secret"), missing::toString);
        assertTrue(missing.out().isEmpty() && !Files.exists(secret), missing::toString);

        ChildProcess.Result made = ChildProcess.run(It.runnableJar(), tmp, "", "--issue-token=agent/n1", "--create-secret", "--secret=" + secret);
        assertEquals(0, made.exit(), made::toString);
        ChildProcess.Result r = ChildProcess.run(It.runnableJar(), tmp, "", "--issue-token=agent/n1", "--secret=" + secret);
        assertEquals(0, r.exit(), r::toString);
        assertEquals(new Sender(Role.AGENT, "n1"), Tokens.fromFile(secret).verify(made.out().strip()), made::toString);
        assertEquals(new Sender(Role.AGENT, "n1"), Tokens.fromFile(secret).verify(r.out().strip()), "the same secret: " + r);
        assertFalse(r.err().contains("Warning"), r::toString);

        Files.setPosixFilePermissions(secret, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
        ChildProcess.Result exposed = ChildProcess.run(It.runnableJar(), tmp, "", "--issue-token=agent/n1", "--secret=" + secret);
        assertEquals(0, exposed.exit(), exposed::toString);
        assertTrue(exposed.err().contains("Warning: --secret:") && exposed.err().contains("readable by other users"), exposed::toString);

        ChildProcess.Result bad = ChildProcess.run(It.runnableJar(), tmp, "", "--issue-token=boss/n1", "--secret=" + secret);
        assertEquals(Launcher.EXIT_USAGE, bad.exit(), bad::toString);
        assertTrue(bad.err().startsWith("Error: --issue-token: expected agent/NODE"), bad::toString);
    }

    private static HttpClient client(HttpClient.Builder builder) {
        return builder.connectTimeout(Duration.ofSeconds(10)).build();
    }

    private static HttpRequest get(String uri) {
        return HttpRequest.newBuilder(URI.create(uri)).timeout(Duration.ofSeconds(20)).GET().build();
    }

    private static SSLContext trusting(Path keystore, String password) throws Exception {
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(keystore)) {
            trusted.load(in, password.toCharArray());
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        return ssl;
    }

    private static void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "keytool").toString()));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "keytool did not finish");
            assertEquals(0, p.exitValue(), () -> "keytool: " + new String(readAll(p), java.nio.charset.StandardCharsets.UTF_8));
        } finally {
            p.destroyForcibly();
        }
    }

    private static byte[] readAll(Process p) {
        try {
            return p.getInputStream().readAllBytes();
        } catch (IOException e) {
            return new byte[0];
        }
    }

    /** This machine's addresses other than loopback (IPv4 and IPv6): the server must not answer there. */
    private static List<InetAddress> otherAddresses() throws IOException {
        List<InetAddress> out = new ArrayList<>();
        for (NetworkInterface n : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            for (InetAddress a : Collections.list(n.getInetAddresses())) {
                if (!a.isLoopbackAddress() && !a.isLinkLocalAddress() && a instanceof Inet4Address) {
                    out.add(a);
                }
            }
        }
        out.add(InetAddress.getByName("::1"));
        return out;
    }

    private static boolean accepts(InetAddress address, int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, port), 2000);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
