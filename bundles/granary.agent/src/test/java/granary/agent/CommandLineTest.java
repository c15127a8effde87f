package granary.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.Resources;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CommandLineTest {

    @TempDir
    Path dir;

    private String[] args(String... extra) throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, "agent/n1.abc\n");
        String[] base = {"--master=http://127.0.0.1:7070", "--node=n1", "--capacity=cpu=6400,mem=262144,gpu=4",
                "--token-file=" + token, "--work-dir=" + dir.resolve("w")};
        String[] all = new String[base.length + extra.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(extra, 0, all, base.length, extra.length);
        return all;
    }

    @Test
    void readsEveryOptionWithDefaults() throws Exception {
        AgentConfig c = CommandLine.parse(args());
        assertEquals("agent/n1.abc", c.token());
        assertEquals(Resources.of(6400, 262_144, Map.of("gpu", 4L)), c.capacity());
        assertEquals("default", c.room());
        assertEquals(Duration.ofSeconds(1), c.heartbeat());
        assertEquals(0, c.listen().getPort());
        assertFalse(c.keepWorkersOnExit());
        AgentConfig d = CommandLine.parse(args("--room=r7", "--labels=zone=a,disk=ssd", "--heartbeat=250ms",
                "--register-retries=0", "--max-workers=8", "--max-pending=5", "--pending-expiry=2m", "--stop-grace=3s",
                "--poll-wait=30s", "--listen=0.0.0.0:7071", "--advertise=http://n1.example:7071", "--keep-workers-on-exit"));
        assertEquals(Map.of("zone", "a", "disk", "ssd"), d.labels());
        assertEquals(Duration.ofMillis(250), d.heartbeat());
        assertEquals(0, d.registerRetries());
        assertEquals(8, d.maxWorkers());
        assertEquals(Duration.ofMinutes(2), d.pendingExpiry());
        assertEquals(7071, d.listen().getPort());
        assertTrue(d.keepWorkersOnExit());
    }

    @Test
    void refusalsNameTheOptionAndItsForm() throws Exception {
        assertRefused("--heartbeat=1x: expected a positive duration", "--heartbeat=1x");
        assertRefused("--listen=nowhere: expected HOST:PORT", "--listen=nowhere");
        assertRefused("--max-workers=0: expected a whole number of at least 1", "--max-workers=0");
        assertRefused("--poll-wait=60000ms: at most 30000ms", "--poll-wait=1m");
        assertRefused("--labels=x: entry 'x' is not k=v", "--labels=x");
        assertRefused("--keep-workers-on-exit takes no value", "--keep-workers-on-exit=yes");
        UsageException ex = assertThrows(UsageException.class, () -> CommandLine.parse(new String[] {"--node=n1"}));
        assertEquals("--master is missing: --master=http://HOST:PORT", ex.getMessage());
    }

    @Test
    void workRootsAndTheKeyStoreAreRead() throws Exception {
        assertEquals(List.of(), CommandLine.parse(args()).workRoots());
        assertEquals(null, CommandLine.parse(args()).tls());
        AgentConfig c = CommandLine.parse(args("--work-roots=/srv/a,/srv/b/../c"));
        assertEquals(List.of(Path.of("/srv/a"), Path.of("/srv/c")), c.workRoots());
        Path ks = Files.writeString(dir.resolve("agent.p12"), "x");
        Path pw = Files.writeString(dir.resolve("pw"), "secret\n");
        AgentConfig t = CommandLine.parse(args("--keystore=" + ks, "--keystore-password-file=" + pw));
        assertEquals(new AgentConfig.Tls(ks.toAbsolutePath(), pw.toAbsolutePath(), null), t.tls());
        assertRefused("--keystore needs --keystore-password-file=FILE", "--keystore=" + ks);
        assertRefused("--keystore-password-file and --key-password-file go with --keystore=FILE", "--keystore-password-file=" + pw);
        assertRefused("--keystore: " + dir.resolve("missing.p12").toAbsolutePath() + " is not a file", "--keystore=" + dir.resolve("missing.p12"));
        assertRefused("--work-roots: an empty directory", "--work-roots=/a,,/b");
    }

    /** Isolation, users and health (docs/agent.md): their defaults, and refusals in words. */
    @Test
    void isolationUsersAndHealthAreReadWithTheirDefaults() throws Exception {
        WorkerPolicy w = CommandLine.parse(args()).workers();
        assertEquals(WorkerPolicy.Isolation.AUTO, w.isolation(), "hard where cgroups can be written");
        assertEquals(OsLauncher.selfUid() == 0 ? "nobody" : null, w.user(), "never root by default");
        assertEquals(List.of(), w.healthCommand());
        assertEquals(3, w.failureLimit());
        assertEquals(null, w.capacityNote(), "the capacity was given");
        WorkerPolicy o = CommandLine.parse(args("--isolation=soft", "--health-command=/bin/check  --disks", "--health-period=1m",
                "--health-timeout=5s", "--failure-limit=0")).workers();
        assertEquals(WorkerPolicy.Isolation.SOFT, o.isolation());
        assertEquals(List.of("/bin/check", "--disks"), o.healthCommand());
        assertEquals(Duration.ofMinutes(1), o.healthPeriod());
        assertEquals(Duration.ofSeconds(5), o.healthTimeout());
        assertEquals(0, o.failureLimit());
        assertRefused("--isolation=strict: expected off, soft, hard or auto", "--isolation=strict");
        assertRefused("--reserve goes without --capacity", "--reserve=cpu=100,mem=1024");
        assertRefused("--worker-user=root: workers run as root only with --allow-root-workers", "--worker-user=root");
        assertRefused("--health-command= is empty", "--health-command= ");
        if (OsLauncher.selfUid() == 0) {
            assertRefused("--worker-user=no-such-user-here: there is no such user on this node", "--worker-user=no-such-user-here");
            assertRefused("--allowed-users=etl,root: root is allowed only with --allow-root-workers", "--allowed-users=etl,root");
            WorkerPolicy u = CommandLine.parse(args("--worker-user=nobody", "--allowed-users=daemon")).workers();
            assertEquals("nobody", u.user());
            assertEquals(java.util.Set.of("daemon"), u.allowedUsers());
            assertFalse(u.allowRoot());
            assertTrue(CommandLine.parse(args("--allow-root-workers")).workers().allowRoot());
            assertEquals(null, CommandLine.parse(args("--allow-root-workers")).workers().user(), "root allowed: the agent's own");
        }
    }

    /** Without --capacity: the machine's cores and memory less the reserve; a reserve larger than the machine is refused. */
    @Test
    void withoutCapacityTheMachinesIsTaken() throws Exception {
        Path token = dir.resolve("token");
        Files.writeString(token, "agent/n1.abc\n");
        String[] base = {"--master=http://127.0.0.1:7070", "--node=n1", "--token-file=" + token, "--work-dir=" + dir.resolve("w")};
        AgentConfig c = CommandLine.parse(base);
        int cores = Runtime.getRuntime().availableProcessors();
        assertEquals(cores * 100L - 100, c.capacity().cpu(), "less one core by default");
        assertEquals(ProcStat.memoryMiB() - 1024, c.capacity().memMb(), "less 1 GiB by default");
        assertTrue(c.workers().capacityNote().startsWith("found on the machine: " + cores + " cores, "), c.workers().capacityNote());
        String[] big = java.util.Arrays.copyOf(base, base.length + 1);
        big[base.length] = "--reserve=cpu=" + (cores * 100 + 1) + ",mem=0";
        UsageException ex = assertThrows(UsageException.class, () -> CommandLine.parse(big));
        assertTrue(ex.getMessage().startsWith("--reserve=cpu=" + (cores * 100 + 1) + ",mem=0 is more than the machine has"), ex.getMessage());
    }

    private void assertRefused(String expected, String option) throws Exception {
        UsageException ex = assertThrows(UsageException.class, () -> CommandLine.parse(args(option)));
        assertTrue(ex.getMessage().startsWith(expected), ex.getMessage());
    }
}
