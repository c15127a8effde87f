package granary.agent.jar;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import granary.api.model.Problem;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.link.Endpoint;
import granary.protocol.link.JdkHttpServer;
import granary.protocol.link.Reply;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** target/granary-agent.jar as a real process: its exit codes and messages when it cannot register, and a start. */
class AgentJarIT {

    private static final Sender MASTER = new Sender(Role.MASTER, "m");

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();
    private final List<JdkHttpServer> servers = new ArrayList<>();

    @AfterEach
    void kill() throws InterruptedException {
        for (Process p : processes) {
            p.destroyForcibly();
            p.waitFor(5, TimeUnit.SECONDS);
        }
        servers.forEach(JdkHttpServer::close);
        // an agent that ended, giving up or stopped, left no cgroup of its own (docs/agent.md, "Isolation")
        String tag = "-" + Integer.toHexString(dir.resolve("w").toAbsolutePath().normalize().toString().hashCode());
        try (java.util.stream.Stream<Path> found = Files.exists(Path.of("/sys/fs/cgroup"))
                ? Files.find(Path.of("/sys/fs/cgroup"), 4, (f, a) -> a.isDirectory() && f.getFileName().toString().startsWith("granary-")
                        && f.getFileName().toString().endsWith(tag))
                : java.util.stream.Stream.empty()) {
            List<Path> left = found.toList();
            left.forEach(f -> f.toFile().delete());
            assertEquals(List.of(), left, "cgroups left behind");
        } catch (IOException ex) {
            // no cgroup file system to look in
        }
    }

    @Test
    void unreachableMasterExits4NamingTheUrlAndAttempts() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed again: nothing listens there
        }
        String url = "http://127.0.0.1:" + port;
        Result r = run("--master=" + url, "--node=n1", "--room=r1", "--capacity=cpu=6400,mem=262144",
                "--token-file=" + token("agent/n1.xyz"), "--work-dir=" + dir.resolve("w"), "--register-retries=1");
        assertEquals(4, r.code, r.toString());
        assertTrue(r.err.contains(url) && r.err.contains("unreachable after 2 attempts"), r.err);
    }

    @Test
    void badOptionExits2NamingTheOptionAndItsForm() throws Exception {
        Result r = run("--master=http://127.0.0.1:1", "--node=n1", "--capacity=lots", "--token-file=" + token("t"),
                "--work-dir=" + dir);
        assertEquals(2, r.code, r.toString());
        assertTrue(r.err.contains("--capacity=lots") && r.err.contains("cpu=N,mem=MIB"), r.err);
        Result missing = run("--node=n1");
        assertEquals(2, missing.code);
        assertTrue(missing.err.contains("--master is missing"), missing.err);
        Result unknown = run("--colour=blue");
        assertEquals(2, unknown.code);
        assertTrue(unknown.err.contains("unknown option --colour"), unknown.err);
    }

    @Test
    void refusedTokenExits3NamingTheNode() throws Exception {
        String url = master(e -> refusal(401, "not a valid token")).url().toString();
        Result r = run("--master=" + url, "--node=n9", "--capacity=cpu=100,mem=64", "--token-file=" + token("agent/n9.bad"),
                "--work-dir=" + dir.resolve("w"));
        assertEquals(3, r.code, r.toString());
        assertTrue(r.err.contains("refused the token of node n9"), r.err);
    }

    @Test
    void helpPrintsTheUsage() throws Exception {
        Result r = run("--help");
        assertEquals(0, r.code);
        assertTrue(r.out.contains("--keep-workers-on-exit") && r.out.contains("exit codes"), r.out);
    }

    @Test
    void registersPrintsItsEndpointAndStopsOnSigterm() throws Exception {
        WireCodec codec = new WireCodec(Role.MASTER);
        String url = master(body -> {
            Envelope e = codec.decode(body, "agent");
            return new Reply(200, codec.encode(Envelope.of(MASTER, 7, 0, Ack.applied(e.sequence()))));
        }).url().toString();
        Process p = start("--master=" + url, "--node=n1", "--capacity=cpu=100,mem=64", "--token-file=" + token("agent/n1.x"),
                "--work-dir=" + dir.resolve("w"), "--heartbeat=200ms", "--poll-wait=200ms");
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        // first what it says of its workers (docs/agent.md), then that it registered
        String isolation = out.readLine();
        assertTrue(isolation != null && (isolation.startsWith("isolation mode=hard ") || isolation.startsWith("isolation-off reason=")),
                isolation);
        String user = out.readLine();
        assertTrue(user != null && user.startsWith("workers user="), user);
        if (isRoot()) {
            assertTrue(user.startsWith("workers user=nobody ") && user.contains("root=refused"), "as root, never root by default: " + user);
        }
        String line = out.readLine();
        assertTrue(line != null && line.startsWith("registered node=n1 master=" + url + " endpoint=http://127.0.0.1:"), line);
        p.destroy(); // SIGTERM
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "the agent exits on SIGTERM");
        assertTrue(Files.exists(dir.resolve("w/caps.checkpoint")));
        if (isolation.startsWith("isolation mode=hard ")) {
            String parents = isolation.substring(isolation.indexOf("parents=[") + 9, isolation.indexOf(']'));
            for (String parent : parents.split(", ")) {
                assertFalse(Files.exists(Path.of(parent)), "the agent removed its cgroup " + parent + " as it ended");
            }
        }
    }

    /** Without --capacity the agent finds the machine's cores and memory, less the reserve, and says so. */
    @Test
    void withoutCapacityItTakesTheMachinesLessTheReserve() throws Exception {
        WireCodec codec = new WireCodec(Role.MASTER);
        String url = master(body -> {
            Envelope e = codec.decode(body, "agent");
            return new Reply(200, codec.encode(Envelope.of(MASTER, 7, 0, Ack.applied(e.sequence()))));
        }).url().toString();
        Process p = start("--master=" + url, "--node=n1", "--token-file=" + token("agent/n1.x"), "--reserve=cpu=50,mem=100",
                "--work-dir=" + dir.resolve("w"), "--heartbeat=200ms", "--poll-wait=200ms", "--isolation=off");
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        int cores = Runtime.getRuntime().availableProcessors();
        assertTrue(line != null && line.startsWith("capacity cpu=" + (cores * 100 - 50) + ",mem=")
                && line.contains("(found on the machine: " + cores + " cores, ") && line.endsWith("less the reserve cpu=50,mem=100)"), line);
        String warning = out.readLine();
        assertTrue(warning != null && warning.startsWith("isolation-off reason=--isolation=off (workers are not held to their slots"), warning);
        p.destroy();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "the agent exits on SIGTERM");
    }

    private static boolean isRoot() throws IOException {
        return ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).intValue() == 0;
    }

    // --- helpers

    private record Result(int code, String out, String err) {
    }

    private Path token(String text) throws IOException {
        Path f = Files.createTempFile(dir, "token", ".txt");
        Files.writeString(f, text + "\n");
        return f;
    }

    private JdkHttpServer master(Function<byte[], Reply> answer) throws IOException {
        JdkHttpServer s = JdkHttpServer.start(new InetSocketAddress("127.0.0.1", 0), new Endpoint() {
            @Override
            public Reply post(String authorization, byte[] body, String remote) {
                return answer.apply(body);
            }

            @Override
            public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
                return CompletableFuture.supplyAsync(() -> {
                    try {
                        Thread.sleep(Math.min(waitMillis, 500));   // a long poll with nothing to deliver
                    } catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                    return Reply.empty();
                });
            }
        }, null);
        servers.add(s);
        return s;
    }

    private static Reply refusal(int status, String message) {
        Ack a = Ack.refused(0, List.of(Problem.of("master", "Authorization", message)));
        return new Reply(status, new WireCodec(Role.MASTER).encode(Envelope.of(MASTER, 7, 0, a)));
    }

    private Process start(String... args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", System.getProperty("granary.agent.jar")));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(false).start();
        processes.add(p);
        return p;
    }

    private Result run(String... args) throws Exception {
        Process p = start(args);
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            fail("the agent did not exit within 30 s: " + String.join(" ", args));
        }
        return new Result(p.exitValue(), out.get(5, TimeUnit.SECONDS), err.get(5, TimeUnit.SECONDS));
    }

    private static String read(java.io.InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException ex) {
            return "<" + ex + ">";
        }
    }
}
