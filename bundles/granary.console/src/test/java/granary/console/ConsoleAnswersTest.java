package granary.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import granary.api.event.JobSubmitted;
import granary.api.event.NodeAdded;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.event.PolicyInstalled;
import granary.api.model.Clock;
import granary.api.model.InvalidRequestException;
import granary.codec.JobCodec;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.engine.EventLoop;
import granary.master.LeaderLease;
import granary.policy.fifo.FifoPolicy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the console answers beyond the commands' own results: refusals in words (the JLine shell
 * prints a failure's {@code toString()}), the count of refused submissions in the status, and
 * {@code granary:names} without a kind. Over a real engine and event loop.
 */
class ConsoleAnswersTest {

    private EventLoop loop;
    private SubmissionRefusals refusals;
    private AutoCloseable watch;
    private Commands commands;

    @TempDir
    Path dir;

    @BeforeEach
    void start() {
        loop = new EventLoop(new Engine(Clock.system(), new EngineOptions(List.of("fifo"), List.of("fifo"), true)), 1000, "test")
                .start();
        Commands.await(loop.submit(new PolicyInstalled(new FifoPolicy(), "granary.policy.fifo 0.1.0")));
        Commands.await(loop.submit(new NodeAdded(new NodeSpec("n0", "r0", Resources.of(400, 8192)))));
        refusals = new SubmissionRefusals();
        watch = loop.watchHandling(refusals);
        commands = new Commands(loop, refusals);
    }

    @AfterEach
    void stop() throws Exception {
        watch.close();
        loop.close();
    }

    private Map<String, String> status() {
        return Arrays.stream(commands.status().split("\n")).map(l -> l.split("=", 2))
                .collect(Collectors.toMap(a -> a[0], a -> a[1]));
    }

    @Test
    void anEngineRefusalPrintsAsItsMessageWithoutAJavaClassName() {
        Refusal e = assertThrows(Refusal.class, () -> commands.cancel("nosuch"));
        assertTrue(e.getCause() instanceof InvalidRequestException, "the engine's refusal is kept as the cause");
        assertEquals(e.getMessage(), e.toString(), "the shell prints toString(): the message only");
        assertFalse(e.toString().contains("Exception") || e.toString().contains("granary."), e.toString());
        assertTrue(e.toString().contains("nosuch"), e.toString());
    }

    @Test
    void aWrongCallAndAMissingFileAreWordsToo() {
        Refusal wrong = assertThrows(Refusal.class, () -> commands.policy(new Object[] {"a", "b"}));
        assertTrue(wrong.toString().startsWith("granary:policy takes 1 argument, got 2"), wrong.toString());
        Refusal missing = assertThrows(Refusal.class, () -> commands.submit(dir.resolve("none.json").toString()));
        assertFalse(missing.toString().contains("Exception"), missing.toString());
        assertTrue(missing.toString().contains("none.json"), missing.toString());
    }

    @Test
    void aFailureWithoutAMessageStillSaysSomethingInWords() {
        Refusal e = Refusal.of(new NullPointerException());
        assertEquals("the command failed without a message (null pointer exception)", e.toString());
    }

    @Test
    void theStatusCountsRefusedSubmissionsAndTheirJobs() throws IOException {
        assertEquals("0", status().get("refused_submissions"));
        assertEquals("0", status().get("refused_jobs"));
        String job = "{\"id\":\"b\",\"units\":[{\"name\":\"u\",\"slot\":{\"cpu\":100,\"mem\":1024},\"desired\":1}]}";
        Path b = dir.resolve("b.json");
        Files.writeString(b, job);
        commands.submit(b.toString());
        // a batch with a job whose id is taken: the engine refuses the batch whole
        Path batch = dir.resolve("batch.json");
        Files.writeString(batch, "[" + job.replace("\"b\"", "\"a\"") + ", " + job + "]");
        assertThrows(Refusal.class, () -> commands.submit(batch.toString()));
        // a single job from elsewhere (a job master, the demo) that the engine refuses
        assertThrows(Refusal.class, () -> Commands.await(loop.submit(new JobSubmitted(
                JobCodec.read(new StringReader(job), "test").get(0)))));

        Map<String, String> s = status();
        assertEquals("1", s.get("jobs"), "only b, accepted once: a refused job is never in jobs=");
        assertEquals("2", s.get("refused_submissions"), s.toString());
        assertEquals("3", s.get("refused_jobs"), s.toString());
        assertEquals("3", s.get("refused_jobs.duplicate"), "counted by the engine's reason\n" + s);
        assertEquals(List.of("refused_jobs", "refused_jobs.duplicate"),
                s.keySet().stream().filter(k -> k.startsWith("refused_jobs")).sorted().toList(), "no reason not seen");
    }

    @Test
    void aStandbySaysSoAndNamesItsLeaderFirstInTheStatus() {
        commands.lease(new LeaderLease() {
            @Override
            public boolean held() {
                return false;
            }

            @Override
            public String why() {
                return "master http://b:7070 is a standby of cluster c1; the leader is http://a:7070";
            }

            @Override
            public URI leader() {
                return URI.create("http://a:7070");
            }
        });
        List<String> lines = commands.status().lines().toList();
        assertEquals("role=standby", lines.get(0));
        assertEquals("leader=http://a:7070", lines.get(1));
        assertTrue(lines.get(2).startsWith("role.why=master http://b:7070 is a standby of cluster c1"), lines.toString());

        commands.lease(LeaderLease.ALWAYS);
        assertTrue(commands.status().startsWith("time="), "a single master: no role line");
    }

    @Test
    void namesWithoutAKindListsEveryKind() {
        Completions c = new Completions(loop);
        List<String> lines = c.names().lines().toList();
        assertEquals(List.of("policies", "jobs", "nodes", "queues"),
                lines.stream().map(l -> l.substring(0, l.indexOf(':'))).toList(), lines.toString());
        assertTrue(lines.get(0).contains("fifo"), lines.toString());
        assertEquals("nodes: n0", lines.get(2));
        Refusal e = assertThrows(Refusal.class, () -> c.names("bogus"));
        assertTrue(e.toString().contains("\"bogus\"") && e.toString().contains("policies, jobs, nodes, queues"), e.toString());
    }
}
