package granary.bench.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * {@link Attack} against a small server that answers 401 and closes as soon as a request's headers
 * are in (as the master does without a valid token) and holds connections that send nothing.
 */
class AttackTest {

    @Test
    void slowPostsAreAnsweredAndOpenedAgainIdleOnesHeld() throws Exception {
        Set<Socket> accepted = ConcurrentHashMap.newKeySet();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> {
                while (!server.isClosed()) {
                    try {
                        Socket s = server.accept();
                        accepted.add(s);
                        Thread h = new Thread(() -> answer401(s));
                        h.setDaemon(true);
                        h.start();
                    } catch (IOException ex) {
                        return;
                    }
                }
            });
            acceptor.setDaemon(true);
            acceptor.start();
            try (Attack a = Attack.start(server.getLocalPort(), 3, 5, 20)) {
                a.awaitHeld(10);
                assertEquals(5, a.heldIdle(), "every idle connection is held");
                Thread.sleep(2500); // the slow ones are opened again at the next tick
                Map<String, Long> counts = a.snapshot();
                assertTrue(counts.get("401") >= 6, "each slow post was answered 401, then opened again: " + counts);
                assertEquals("HTTP/1.1 401 Unauthorized", a.lastStatus());
                assertEquals(0L, counts.get("closed_idle"), "idle connections stay open: " + counts);
            }
        } finally {
            for (Socket s : accepted) {
                s.close();
            }
        }
    }

    @Test
    void parsesSlowAndIdle() {
        int[] p = Attack.parse("500,2000");
        assertEquals(500, p[0]);
        assertEquals(2000, p[1]);
        assertThrows(IllegalArgumentException.class, () -> Attack.parse("500"));
        assertThrows(IllegalArgumentException.class, () -> Attack.parse("-1,2"));
    }

    /** Reads until the end of the headers, then answers 401 and closes; a connection that sends nothing is held. */
    private static void answer401(Socket s) {
        try (s; InputStream in = s.getInputStream()) {
            int state = 0;
            for (int b; (b = in.read()) >= 0; ) {
                state = (b == '\r' && (state == 0 || state == 2)) ? state + 1 : (b == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
                if (state == 4) {
                    s.getOutputStream().write("HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                    s.getOutputStream().flush();
                    return;
                }
            }
        } catch (IOException ex) {
            // the attack closed it
        }
    }
}
