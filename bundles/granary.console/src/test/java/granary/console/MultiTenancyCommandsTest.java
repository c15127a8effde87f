package granary.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import granary.api.model.Clock;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.api.event.NodeAdded;
import granary.api.event.PolicyInstalled;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.engine.EventLoop;
import granary.policy.fifo.FifoPolicy;
import granary.policy.queues.QueuesPolicy;
import granary.policy.queues.QueuesProvider;
import granary.policy.quota.QuotaOptions;
import granary.policy.quota.QuotaPolicy;
import granary.policy.quota.QuotaProvider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** quota-load, quota, billing, queues-load, queues and move over a real engine with the real policies. */
class MultiTenancyCommandsTest {

    private EventLoop loop;
    private Commands commands;

    @TempDir
    Path dir;

    @BeforeEach
    void start() {
        loop = new EventLoop(new Engine(Clock.system(), new EngineOptions(List.of("fifo", "queues", "quota"),
                List.of("fifo"), true)), 1000, "test").start();
        Commands.await(loop.submit(new PolicyInstalled(new FifoPolicy(), "granary.policy.fifo 0.1.0")));
        Commands.await(loop.submit(new PolicyInstalled(new QueuesPolicy(), "granary.policy.queues 0.1.0")));
        Commands.await(loop.submit(new PolicyInstalled(new QuotaPolicy(QuotaOptions.DEFAULTS, null), "granary.policy.quota 0.1.0")));
        for (int i = 0; i < 4; i++) {
            Commands.await(loop.submit(new NodeAdded(new NodeSpec("n" + i, "r1", Resources.of(1000, 10_000)))));
        }
        commands = new Commands(loop);
    }

    @AfterEach
    void stop() {
        loop.close();
    }

    private Path file(String name, String text) throws IOException {
        Path f = dir.resolve(name);
        Files.writeString(f, text);
        return f;
    }

    /** The console function of that name, as the console makes it from the policies' declarations. */
    private PolicyFunction hyphenated(String name) {
        return List.of(QuotaProvider.DECLARATION, QueuesProvider.DECLARATION).stream()
                .flatMap(d -> PolicyConsole.functions(d, loop).stream())
                .filter(f -> f.names().contains(name)).findFirst().orElseThrow();
    }

    private String run(String name, String... args) {
        return hyphenated(name).run(List.of(args));
    }

    @Test
    void loadAQueueTreeAndAQuotaTableThenSubmitAndMove() throws IOException {
        Path tree = file("queues.json", """
                {"queues": {"a": {"capacity": "50%", "queues": {"p0": {"capacity": "100%"}}},
                            "b": {"capacity": "50%", "queues": {"p0": {"capacity": "100%"}}}}}""");
        assertTrue(run("queuesLoad", tree.toString()).contains("queue tree"), "loaded");
        Path table = file("quota.json", """
                {"default": {"root.a.p0": {"GroupId": 1, "MaxQuota": 20, "MinQuota": 5},
                             "root.b.p0": {"GroupId": 2, "MaxQuota": 20, "MinQuota": 5}}}""");
        String loaded = (String) hyphenated("quota-load").execute(null, List.of(table.toString(), "default:40"));
        assertTrue(loaded.startsWith("quota table: 1 slices, 2 groups, counting workers, WorkerSpans default:40"), loaded);
        List<String> quota = List.of(run("quota").split("\n"));
        assertEquals("slice=default workers=40 preemption=on emergent=- claimed_nodes=0 lookahead_until=-", quota.get(0));
        assertTrue(quota.get(1).matches("root\\.a\\.p0\\s+id=1\\s+min=5\\s+max=20\\s+used=0\\s+NORMAL\\s+preempted_from=0\\s+preempted_for=0\\s+preempted_work_slot_seconds=0"), quota.get(1));

        Path job = file("job.json", "{\"id\":\"j\",\"group\":\"root.a.p0\",\"units\":[{\"name\":\"u\",\"slot\":\"cpu=100,mem=100\",\"desired\":30}]}");
        assertEquals("submitted j to root.a.p0: granted 20 of 30 slots", commands.submit(job.toString()));
        assertTrue(run("quota").contains("used=20  DRAWBACK"), run("quota"));
        assertTrue(run("queues").lines().anyMatch(l -> l.trim().startsWith("root.a.p0") && l.contains("jobs=1")), run("queues"));
        assertEquals("moved j to root.b.p0", commands.move("j", "root.b.p0"));
        assertTrue(commands.jobs().startsWith("j group=root.b.p0"), commands.jobs());
        assertTrue(run("billing").equals("no billing yet") || run("billing").contains("root."), run("billing"));
    }

    @Test
    void aBadQuotaTableIsRefusedWithEveryProblemAndTheOldOneStays() throws IOException {
        Path good = file("good.json", "{\"default\": {\"g\": {\"GroupId\": 1, \"MaxQuota\": 10, \"MinQuota\": 0}}}");
        run("quotaLoad", good.toString());
        Path bad = file("bad.json", """
                {"default": {"g": {"GroupId": 1, "MaxQuota": 5, "MinQuota": 9}},
                 "0-9": {"g": {"GroupId": 2, "MaxQuota": 5, "MinQuota": 1}}, "8-12": {}}""");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> run("quotaLoad", bad.toString()));
        List<String> lines = List.of(e.getMessage().split("\n"));
        assertEquals(3, lines.size(), e.getMessage());
        assertTrue(e.getMessage().contains("slice default, group g: MinQuota: MinQuota 9 > MaxQuota 5"), e.getMessage());
        assertTrue(e.getMessage().contains("slices 0-9 and 8-12: hours: overlap at hours 8-9"), e.getMessage());
        assertTrue(e.getMessage().contains("group g: GroupId: is 1 in slice default but 2 in slice 0-9"), e.getMessage());
        assertTrue(run("quota").contains("max=10"), "the old table is still in force: " + run("quota"));
        IllegalArgumentException spans = assertThrows(IllegalArgumentException.class,
                () -> run("quotaLoad", good.toString(), "default:50"));
        assertTrue(spans.getMessage().contains("WorkerSpans 50 > sum of MaxQuota 10"), spans.getMessage());
    }

    @Test
    void hyphenatedCommandsCheckTheirArgumentsAndPrintUsage() {
        PolicyFunction load = hyphenated("quota-load");
        assertTrue(((String) load.execute(null, List.of("--help"))).startsWith("granary:quota-load <file> [workerSpans]"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> load.execute(null, List.of()));
        assertTrue(e.getMessage().startsWith("granary:quota-load takes 1 or 2 arguments, got 0"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> hyphenated("queues-load").execute(null, List.of("a", "b")));
    }

    @Test
    void billingRejectsAMalformedDay() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> run("billing", "yesterday"));
        assertEquals("billing: day 'yesterday' is not yyyy-MM-dd", e.getMessage());
    }
}
