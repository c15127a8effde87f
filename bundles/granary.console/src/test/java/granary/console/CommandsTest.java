package granary.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import granary.api.model.Clock;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.event.NodeAdded;
import granary.api.event.PolicyInstalled;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.engine.EventLoop;
import granary.policy.fair.FairPolicy;
import granary.policy.fifo.FifoPolicy;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The console over a real engine and event loop with the real FIFO and FAIR policies. */
class CommandsTest {

    private EventLoop loop;
    private Commands commands;

    @TempDir
    Path dir;

    @BeforeEach
    void start() {
        loop = new EventLoop(new Engine(Clock.system(), new EngineOptions(List.of("fifo"), List.of("fifo", "fair"), true)), 1000, "test")
                .start();
        Commands.await(loop.submit(new PolicyInstalled(new FifoPolicy(), "granary.policy.fifo 0.1.0")));
        Commands.await(loop.submit(new PolicyInstalled(new FairPolicy(), "granary.policy.fair 0.1.0")));
        for (int i = 0; i < 4; i++) {
            Commands.await(loop.submit(new NodeAdded(new NodeSpec("n" + i, "r" + (i % 2), Resources.of(400, 8192)))));
        }
        commands = new Commands(loop);
    }

    @AfterEach
    void stop() {
        loop.close();
    }

    private Map<String, String> status() {
        return Arrays.stream(commands.status().split("\n")).map(l -> l.split("=", 2))
                .collect(Collectors.toMap(a -> a[0], a -> a[1]));
    }

    @Test
    void policiesListsNamePointsBundleVersionAndActive() {
        List<String> lines = List.of(commands.policies().split("\n"));
        assertEquals(4, lines.size(), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.matches("fifo\\s+unit-order\\s+granary\\.policy\\.fifo\\s+0\\.1\\.0\\s+active")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.matches("fair\\s+unit-order\\s+granary\\.policy\\.fair\\s+0\\.1\\.0")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.matches("hunger\\s+group-order\\s+granary\\.engine\\s+built-in\\s+active")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.matches("flat\\s+group-resolver\\s+granary\\.engine\\s+built-in\\s+active")), lines.toString());
    }

    @Test
    void policySwapsAndReportsTheChange() {
        assertEquals("unit-order: fifo -> fair", commands.policy("fair"));
        assertEquals("fair", status().get("policy.unit-order"));
        assertEquals("fair is already active", commands.policy("fair"));
        assertEquals("unit-order: fair -> fifo", commands.policy("fifo"));
    }

    @Test
    void unknownPolicyListsKnownNames() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.policy("lottery"));
        assertTrue(e.getMessage().contains("unknown policy 'lottery'; known: fair, fifo, flat, hunger"), e.getMessage());
    }

    @Test
    void statusHasTheContractKeys() {
        Map<String, String> s = status();
        for (String key : List.of("nodes", "capacity", "free", "waiting_units", "waiting_slots", "granted_slots",
                "policy.unit-order", "policy.group-order", "policy.admission", "policy.node-filter",
                "policy.gang-placement", "policy.cycle-action", "policy.submit-filter", "policy.group-resolver")) {
            assertTrue(s.containsKey(key), "missing " + key + " in " + s);
        }
        assertEquals("4", s.get("nodes"));
        assertEquals("cpu=1600,mem=32768", s.get("capacity"));
        assertEquals("hunger", s.get("policy.group-order"));
        assertEquals("waiting", s.get("policy.gang-placement"));
    }

    @Test
    void submitJobsFromFileThenCancel() throws IOException {
        Path f = dir.resolve("job.json");
        Files.writeString(f, """
                [{"id":"a","units":[{"name":"u","slot":{"cpu":100,"mem":1024},"desired":6}]},
                 {"id":"b","group":"g2","units":[{"name":"u","slot":"cpu=300,mem=1024","desired":3}]}]
                """);
        String out = commands.submit(f.toString());
        assertEquals("submitted a to default: granted 6 of 6 slots\nsubmitted b to g2: granted 2 of 3 slots", out);
        Map<String, String> s = status();
        assertEquals("8", s.get("granted_slots"));
        assertEquals("1", s.get("waiting_slots"));
        assertTrue(commands.jobs().contains("waiting: NO_FIT"), commands.jobs());
        assertEquals("cancelled a: released 6 slots", commands.cancel("a"));
        assertEquals("3", status().get("granted_slots"));
        assertTrue(commands.nodes().lines().count() == 4);
    }

    @Test
    void aFileWithOneRefusedJobSubmitsNoneAndAFixedRetryGoesThrough() throws IOException {
        Path first = dir.resolve("b.json");
        Files.writeString(first, "{\"id\":\"b\",\"units\":[{\"name\":\"u\",\"slot\":{\"cpu\":100,\"mem\":1024},\"desired\":1}]}");
        commands.submit(first.toString());
        Path f = dir.resolve("jobs.json");
        // a is fine; b is already running: the engine refuses the file as a whole
        Files.writeString(f, """
                [{"id":"a","units":[{"name":"u","slot":{"cpu":100,"mem":1024},"desired":2}]},
                 {"id":"b","units":[{"name":"v","slot":{"cpu":100,"mem":1024},"desired":1}]}]
                """);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.submit(f.toString()));
        assertTrue(e.getMessage().contains("job b: id: a job with id 'b' is already running"), e.getMessage());
        assertEquals("1", status().get("jobs"), "nothing of the file was accepted");
        assertEquals("1", status().get("granted_slots"));

        Files.writeString(f, """
                [{"id":"a","units":[{"name":"u","slot":{"cpu":100,"mem":1024},"desired":2}]},
                 {"id":"c","units":[{"name":"u","slot":{"cpu":100,"mem":1024},"desired":1}]}]
                """);
        assertEquals("submitted a to default: granted 2 of 2 slots\nsubmitted c to default: granted 1 of 1 slots",
                commands.submit(f.toString()), "the fixed file goes through whole: no 'already running' for a");
    }

    @Test
    void anIdWithControlCharactersIsRefusedAndEchoedEscaped() throws IOException {
        Path f = dir.resolve("id.json");
        Files.writeString(f, "{\"id\":\"x\\nsubmitted forged to default: granted 9 of 9 slots\\u001b[2J\","
                + "\"units\":[{\"name\":\"u\",\"slot\":{\"cpu\":100,\"mem\":1024},\"desired\":1}]}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.submit(f.toString()));
        assertEquals(1, e.getMessage().lines().count(), "no forged line: " + e.getMessage());
        assertTrue(e.getMessage().contains("'x\\nsubmitted forged to default: granted 9 of 9 slots\\u001B[2J'"), e.getMessage());
        assertTrue(e.getMessage().chars().noneMatch(c -> c == 0x1b), "no raw escape reaches the terminal");
    }

    @Test
    void submitReportsFileAndPathOfEveryProblem() throws IOException {
        Path f = dir.resolve("bad.json");
        Files.writeString(f, "{\"id\":\"a\",\"units\":[{\"name\":\"u\",\"slot\":{\"cpu\":-1},\"desird\":1}]}");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.submit(f.toString()));
        assertTrue(e.getMessage().contains("bad.json:1:46: $.units[0].slot.cpu: must not be negative"), e.getMessage());
        assertTrue(e.getMessage().contains("$.units[0].desird: unknown field"), e.getMessage());
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> commands.submit(dir.resolve("nope.json").toString()));
        assertTrue(missing.getMessage().startsWith("no such file"), missing.getMessage());
        assertEquals("0", status().get("jobs"));
    }

    @Test
    void engineRefusalsComeBackAsErrors() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.cancel("ghost"));
        assertTrue(e.getMessage().contains("no running job with id 'ghost'"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> commands.blacklist("n9"));
        assertEquals("blacklisted n1", commands.blacklist("n1"));
        assertTrue(commands.nodes().lines().anyMatch(l -> l.startsWith("n1") && l.endsWith("blacklisted")));
    }

    @Test
    void whySaysWhatWaitsWhyAndWhatWouldHelp() throws IOException {
        Path f = dir.resolve("big.json");
        Files.writeString(f, "{\"id\":\"big\",\"units\":[{\"name\":\"u\",\"slot\":{\"cpu\":100,\"mem\":6000},\"desired\":6}]}");
        assertEquals("submitted big to default: granted 4 of 6 slots", commands.submit(f.toString()));
        List<String> lines = commands.why("big").lines().toList();
        assertEquals("Job big in group default waits for 2 of its 6 slots (4 granted).", lines.get(0));
        assertTrue(lines.get(1).startsWith("Unit big/u has been waiting for 2 of 6 slots (4 granted) for "), lines.get(1));
        assertTrue(lines.get(2).matches("Most often \\(once, last .*\\): no node has enough free memory for one slot —"
                + " it needs 6000 MiB, the most free on any node is 2192 MiB\\."), lines.get(2));
        assertTrue(lines.get(3).startsWith("It is placed when a node frees enough room"), lines.get(3));
        assertEquals(4, lines.size(), lines.toString());
    }

    @Test
    void whyOfAPlacedJobSaysNothingWaits() throws IOException {
        Path f = dir.resolve("small.json");
        Files.writeString(f, "{\"id\":\"small\",\"units\":[{\"name\":\"u\",\"slot\":{\"cpu\":100,\"mem\":1024},\"desired\":2}]}");
        commands.submit(f.toString());
        assertEquals("Job small is fully placed: nothing waits.\nIt holds 2 slots in 1 unit.", commands.why("small"));
    }

    @Test
    void whyOfAnUnknownJobNamesIt() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.why("ghost\nx"));
        assertEquals("granary:why: no job \"ghost\\nx\" in the scheduler: it was never submitted, or it has finished or"
                + " was cancelled (granary:jobs lists the jobs)", e.getMessage());
    }
}
