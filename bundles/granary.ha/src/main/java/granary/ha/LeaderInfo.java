package granary.ha;

import java.net.URI;

/** The leader as it published itself: its protocol URL and its leadership epoch. */
public record LeaderInfo(URI url, long epoch) {

    /** The znode's content: {@code <epoch> <url>}. */
    String encode() {
        return epoch + " " + url;
    }

    static LeaderInfo decode(byte[] data) {
        String s = new String(data, java.nio.charset.StandardCharsets.UTF_8).trim();
        int space = s.indexOf(' ');
        if (space <= 0) {
            throw new IllegalArgumentException("leader znode: '" + s + "' is not '<epoch> <url>'");
        }
        return new LeaderInfo(URI.create(s.substring(space + 1)), Long.parseLong(s.substring(0, space)));
    }
}
