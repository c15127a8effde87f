package granary.master.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class PostTimesTest {

    @Test
    void saysHowManyPostsAndTheirMedianAndTailInMilliseconds() {
        PostTimes t = new PostTimes();
        assertEquals("posts=0 postP50=-1ms postP99=-1ms postsHttp2=0", t.line());
        for (int i = 1; i <= 100; i++) {
            t.add(i * 1_000_000L, i % 4 == 0); // 1 ms .. 100 ms, every fourth over HTTP/2
        }
        assertEquals("posts=100 postP50=51.0ms postP99=100.0ms postsHttp2=25", t.line());
    }

    @Test
    void keepsTheLatestOnly() {
        PostTimes t = new PostTimes();
        for (int i = 0; i < PostTimes.KEPT; i++) {
            t.add(900_000_000L, false); // 900 ms, then pushed out
        }
        for (int i = 0; i < PostTimes.KEPT; i++) {
            t.add(2_500_000L, true);
        }
        assertEquals("posts=" + 2 * PostTimes.KEPT + " postP50=2.5ms postP99=2.5ms postsHttp2=" + PostTimes.KEPT, t.line());
    }
}
