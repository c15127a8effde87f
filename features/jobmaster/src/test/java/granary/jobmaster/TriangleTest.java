package granary.jobmaster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.agent.Agent;
import granary.agent.AgentConfig;
import granary.api.model.Clock;
import granary.api.model.Resources;
import granary.master.MasterOptions;
import granary.master.ProtocolMaster;
import granary.policy.fifo.FifoPolicy;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.link.JdkHttpServer;
import granary.protocol.link.Tokens;
import granary.testkit.LiveEngine;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The three roles together in one JVM, each the real code: the master's protocol side over a real
 * engine on a loopback port, real agents launching real worker processes, and the sample job master.
 * (ClusterIT in features/standalone runs the same as separate processes with the OSGi runtime.)
 */
class TriangleTest {

    @TempDir
    Path dir;
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    @Test
    void theSampleJobMasterRunsItsTasksInWavesOnRealAgents() throws Exception {
        Tokens tokens = new Tokens("the triangle test secret, 32 bytes".getBytes(StandardCharsets.UTF_8));
        LiveEngine live = new LiveEngine(List.of("fifo"), List.of("fifo"), new FifoPolicy());
        open.add(live);
        ProtocolMaster master = new ProtocolMaster(live.loop, tokens, MasterOptions.defaults(), Clock.system());
        open.add(master);
        JdkHttpServer server = JdkHttpServer.start(new InetSocketAddress("127.0.0.1", 0), master, null);
        open.add(server);
        for (int i = 1; i <= 2; i++) {
            String node = "n" + i;
            Agent agent = new Agent(AgentConfig.of(server.url(), node, Resources.of(300, 4096),
                    tokens.issue(new Sender(Role.AGENT, node)), dir.resolve(node)).withHeartbeat(Duration.ofMillis(200)),
                    Clock.system(), line -> { });
            open.add(agent);
            agent.start();
        }
        Path token = dir.resolve("jm.token");
        Files.writeString(token, tokens.issue(new Sender(Role.JOB_MASTER, "jm-waves")) + "\n");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = Main.run(MainTest.FAST, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), "--master=" + server.url(), "--token-file=" + token,
                "--job=waves", "--tasks=14", "--slot=cpu=100,mem=256", "--command=exit 0", "--timeout=60",
                "--state=" + dir.resolve("state"), "--restartable=off");
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, code, text + "\n" + err.toString(StandardCharsets.UTF_8));
        assertEquals(14, Pattern.compile("(?m)^finished task=\\d+ node=n[12] slot=\\d+ code=0").matcher(text).results().count(), text);
        assertTrue(text.contains("done=14/14"), text);
        // 6 slots for 14 tasks: it ran in waves, and every slot was given back at the end.
        assertEquals(0L, (long) live.<Long>query(v -> v.cluster().nodes().stream().mapToLong(n -> n.allocations().values()
                .stream().mapToLong(Integer::longValue).sum()).sum()));
        assertEquals(2, master.agents().size());
    }
}
