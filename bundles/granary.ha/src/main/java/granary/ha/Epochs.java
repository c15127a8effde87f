package granary.ha;

import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The leadership epoch counter: one persistent znode holding the last epoch given out, advanced by
 * compare-and-set on its version. A new epoch is {@code max(now, last + 1)}: strictly larger than
 * every earlier leader's, and (being at least the wall clock in ms) larger than the start-time
 * incarnations a master uses without HA, so peers moved from a single master to HA see a newer one.
 */
final class Epochs {

    private final CuratorFramework zk;
    private final String path;

    Epochs(CuratorFramework zk, String path) {
        this.zk = zk;
        this.path = path;
    }

    /** Takes the next epoch; retries when another master advanced the counter in between. */
    long next(long now) throws Exception {
        while (true) {
            Stat stat = new Stat();
            byte[] data;
            try {
                data = zk.getData().storingStatIn(stat).forPath(path);
            } catch (KeeperException.NoNodeException ex) {
                long first = Math.max(now, 1);
                try {
                    zk.create().creatingParentsIfNeeded().forPath(path, bytes(first));
                    return first;
                } catch (KeeperException.NodeExistsException raced) {
                    continue;
                }
            }
            long next = Math.max(now, parse(data) + 1);
            try {
                zk.setData().withVersion(stat.getVersion()).forPath(path, bytes(next));
                return next;
            } catch (KeeperException.BadVersionException raced) {
                // another master took one in between: read again
            }
        }
    }

    /** The last epoch given out, or 0 if none yet. */
    long current() throws Exception {
        try {
            return parse(zk.getData().forPath(path));
        } catch (KeeperException.NoNodeException ex) {
            return 0;
        }
    }

    private long parse(byte[] data) {
        String s = new String(data, StandardCharsets.UTF_8).trim();
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException ex) {
            throw new IllegalStateException("znode " + path + " holds '" + s + "', not an epoch (a whole number)", ex);
        }
    }

    private static byte[] bytes(long epoch) {
        return Long.toString(epoch).getBytes(StandardCharsets.UTF_8);
    }
}
