package granary.bench.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The load generator's HTTP/1.1 answers: whole or not yet, by length or in chunks. */
class NioTransportTest {

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void anAnswerIsWholeOnlyOnceItsBodyIsThere() throws Exception {
        byte[] b = bytes("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\nhello");
        assertNull(NioTransport.parse(b, b.length - 1), "one byte short");
        var p = NioTransport.parse(b, b.length);
        assertEquals(200, p.status());
        assertArrayEquals(bytes("hello"), p.body());
        assertTrue(!p.close());
        assertNull(NioTransport.parse(b, 20), "headers not whole");
    }

    @Test
    void chunksAreJoinedAndTheLeaderAndCloseAreRead() throws Exception {
        byte[] b = bytes("HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n"
                + granary.protocol.link.Standby.LEADER_HEADER + ": http://127.0.0.1:9/\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n");
        assertNull(NioTransport.parse(b, b.length - 2));
        var p = NioTransport.parse(b, b.length);
        assertEquals(503, p.status());
        assertArrayEquals(bytes("abcde"), p.body());
        assertTrue(p.close());
        assertEquals("http://127.0.0.1:9/", p.leader());
    }

    @Test
    void anEmptyAnswerHasAnEmptyBody() throws Exception {
        byte[] b = bytes("HTTP/1.1 204 No Content\r\n\r\n");
        assertEquals(0, NioTransport.parse(b, b.length).body().length);
    }
}
