package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HttpTest {

    @TempDir
    Path tmp;

    @Test
    void plainHttpOnTheListenAddress() throws IOException {
        assertEquals(Map.of("org.apache.felix.http.enable", "true", "org.apache.felix.https.enable", "false",
                        "org.apache.felix.http.host", "127.0.0.1", "org.osgi.service.http.port", "0"),
                Http.frameworkProperties(new Http.Address("127.0.0.1", 0), null));
    }

    @Test
    void offTurnsBothOff() throws IOException {
        assertEquals(Map.of("org.apache.felix.http.enable", "false", "org.apache.felix.https.enable", "false"),
                Http.frameworkProperties(null, null));
    }

    @Test
    void httpsWithTheKeystoreAndItsPasswords() throws IOException {
        Path keystore = Files.writeString(tmp.resolve("k.p12"), "not read here");
        Path password = Files.writeString(tmp.resolve("pw"), "s3cret\nignored\n");
        Map<String, String> p = Http.frameworkProperties(new Http.Address("127.0.0.1", 8443), new Http.Tls(keystore, password, null));
        assertEquals("false", p.get("org.apache.felix.http.enable"));
        assertEquals("true", p.get("org.apache.felix.https.enable"));
        assertEquals("8443", p.get("org.osgi.service.http.port.secure"));
        assertEquals(keystore.toAbsolutePath().toString(), p.get("org.apache.felix.https.keystore"));
        assertEquals("s3cret", p.get("org.apache.felix.https.keystore.password"));
        assertEquals("s3cret", p.get("org.apache.felix.https.keystore.key.password"), "the key's password defaults to the store's");
    }

    @Test
    void aMissingKeystoreOrPasswordFileIsNamed() throws IOException {
        Path password = Files.writeString(tmp.resolve("pw"), "s3cret\n");
        Path missing = tmp.resolve("missing.p12");
        assertEquals("--keystore: cannot read " + missing + " (no such file)", assertThrows(IOException.class,
                () -> Http.frameworkProperties(Http.Address.DEFAULT, new Http.Tls(missing, password, null))).getMessage());
        Path keystore = Files.writeString(tmp.resolve("k.p12"), "x");
        Path empty = Files.writeString(tmp.resolve("empty"), "\n");
        assertEquals("--keystore-password-file: " + empty + " is empty (its first line is the password)",
                assertThrows(IOException.class,
                        () -> Http.frameworkProperties(Http.Address.DEFAULT, new Http.Tls(keystore, empty, null))).getMessage());
    }

    @Test
    void aPortInUseIsNamedBeforeTheStart() throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Http.Address address = new Http.Address("127.0.0.1", taken.getLocalPort());
            String message = assertThrows(IOException.class, () -> Http.checkBindable(address, false)).getMessage();
            assertTrue(message.startsWith("cannot listen on http://127.0.0.1:" + taken.getLocalPort() + ": "), message);
        }
        Http.checkBindable(new Http.Address("127.0.0.1", 0), false);   // any free port: nothing to check
    }
}
