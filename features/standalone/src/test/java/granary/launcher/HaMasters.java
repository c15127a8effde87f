package granary.launcher;

import static org.junit.jupiter.api.Assertions.fail;

import granary.conformance.kit.processes.Cluster;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Masters of one high-availability cluster ("it") on loopback, as the HA tests start and watch them (docs/ha.md). */
final class HaMasters {

    /** The longest any one wait of these tests may take. */
    static final Duration BOUND = Duration.ofSeconds(90);
    private static final Pattern LEADS = Pattern.compile("leads cluster it with epoch (\\d+)");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private HaMasters() {
    }

    /** Master {@code i} of the cluster, listening on {@code ports[i]}, advertising {@code urls[i]}, electing on ZooKeeper {@code zk}. */
    static Cluster.Proc start(Cluster cluster, Path dir, String zk, int i, int[] ports, String[] urls) throws IOException {
        return cluster.start("master " + i + "-" + System.nanoTime(), It.runnableJar(), List.of("--demo=false", "--piped",
                "--listen=127.0.0.1:" + ports[i], "--secret=" + dir.resolve("granary.secret"),
                "--zk=" + zk, "--ha-cluster=it", "--advertise=" + urls[i],
                "--config=granary.master:haSessionTimeoutMs=2000"));
    }

    /** True if the master at {@code url} says, in its metrics, that it serves: its recovery window closed and it rebuilt. */
    static boolean serving(String url) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url + "/metrics")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode() == 200 && r.body().contains("granary_master_recovery_state{state=\"serving\"} 1");
        } catch (IOException ex) {
            return false;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * The epoch the master reports when it leads, larger than {@code after}, once it listens too (the
     * runtime opens its port after the master has started, docs/recovery.md, "The window").
     */
    static long awaitEpoch(Cluster.Proc master, long after) throws InterruptedException {
        long[] found = {0};
        await(master.name() + " leads with an epoch above " + after + " and listens", () -> {
            String err = master.stderr();
            Matcher m = LEADS.matcher(err);
            while (m.find()) {
                found[0] = Math.max(found[0], Long.parseLong(m.group(1)));
            }
            return found[0] > after && err.contains(LISTENING);
        }, master);
        return found[0];
    }

    /** Waits until {@code master} says it is a standby and listens (it says the first before its port opens). */
    static void awaitStandby(String what, Cluster.Proc master) throws InterruptedException {
        await(what, () -> {
            String err = master.stderr();
            return err.contains("is a standby of cluster it") && err.contains(LISTENING);
        }, master);
    }

    private static final String LISTENING = "granary: listening on";

    /** Waits for {@code done} up to {@link #BOUND}, polling; fails showing {@code shown}. */
    static void await(String what, BooleanSupplier done, Cluster.Proc shown) throws InterruptedException {
        long end = System.nanoTime() + BOUND.toNanos();
        while (System.nanoTime() < end) {
            if (done.getAsBoolean()) {
                return;
            }
            Thread.sleep(20); // child processes: polled, with a deadline
        }
        fail(what + ": not within " + BOUND + "\n" + shown);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
