package granary.jobmaster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.client.JobMasterClient;
import granary.protocol.link.Link;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The sample job master in process, against a fake master and fake agents that run the commands for real. */
@Timeout(60)
class MainTest {

    static final JobMasterClient.Options FAST = JobMasterClient.Options.defaults()
            .withLink(Link.Options.defaults().withRequestTimeout(Duration.ofSeconds(3)).withBackoff(Duration.ofMillis(20), Duration.ofMillis(200)))
            .withPollWait(Duration.ofMillis(500)).withMaxPause(Duration.ofMillis(200));

    @TempDir
    Path dir;
    final List<AutoCloseable> open = new ArrayList<>();
    final ByteArrayOutputStream out = new ByteArrayOutputStream();
    final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    FakeCluster cluster(int nodes, int slots) throws Exception {
        FakeCluster c = new FakeCluster(nodes, slots);
        open.add(c);
        return c;
    }

    String tokenFile(String jobMaster) throws Exception {
        Path f = dir.resolve("token-" + jobMaster);
        Files.writeString(f, FakeCluster.token(jobMaster) + "\n");
        return f.toString();
    }

    /** Runs the job master with {@code args}, its progress kept under the test's directory unless they say where. */
    int run(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        if (all.stream().noneMatch(a -> a.startsWith("--state=") || a.equals("--help"))) {
            all.add("--state=" + dir.resolve("state-" + runs++));
        }
        return Main.run(FAST, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8),
                all.toArray(new String[0]));
    }

    private int runs;

    String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    /**
     * Exits the master accepted and then lost (it died before telling the job master): without
     * verification the job master would wait for them until its timeout; with it, it asks the agent
     * about each worker it believes running, re-runs the ones whose exit was lost, and finishes
     * (docs/recovery.md, "Exits that never arrive").
     */
    @Test
    void exitsThatNeverArriveAreFoundByVerifyingWithTheAgents() throws Exception {
        FakeCluster c = cluster(2, 2);
        c.dropExits(3);
        int code = run("--master=" + c.url(), "--token-file=" + tokenFile("jm-lost"), "--job=lost", "--tasks=6",
                "--slot=cpu=100,mem=256", "--timeout=40", "--verify=1", "--command=exit 0");
        assertEquals(0, code, out() + err());
        assertTrue(out().contains("done=6/6"), out());
        assertEquals(3, Pattern.compile("(?m)^relaunched task=\\d+ node=n[12] slot=\\d+ \\(its agent did not know it\\)$")
                .matcher(out()).results().count(), out());
    }

    /**
     * Exits that come late, after verification ran those tasks again: the late exit is for a task
     * already finished, but it released a slot and lowered the unit's desire at the master all the
     * same. The job master asks for that slot again, or the tasks still waiting would never get one
     * (found by FailoverIT's agent kill: the job master, busy with an unreachable agent, read the
     * exits of four tasks late and finished at 20 of 24).
     */
    @Test
    void exitsThatComeAfterTheTaskRanAgainDoNotCostTheWaitingTasksTheirSlots() throws Exception {
        FakeCluster c = cluster(2, 1);
        c.delayExits(2, 2_500);
        int code = run("--master=" + c.url(), "--token-file=" + tokenFile("jm-late"), "--job=late", "--tasks=12",
                "--slot=cpu=100,mem=256", "--timeout=20", "--verify=1", "--command=sleep 0.3");
        assertEquals(0, code, out() + err());
        assertTrue(out().contains("done=12/12"), out());
        assertTrue(out().contains("relaunched task="), "verification ran a task again before its late exit came: " + out());
    }

    @Test
    void withoutVerificationALostExitIsWaitedForUntilTheTimeout() throws Exception {
        FakeCluster c = cluster(1, 1);
        c.dropExits(1);
        int code = run("--master=" + c.url(), "--token-file=" + tokenFile("jm-wait"), "--job=wait", "--tasks=1",
                "--slot=cpu=100,mem=256", "--timeout=3", "--verify=0", "--command=exit 0");
        assertEquals(5, code, out() + err());
        assertFalse(out().contains("relaunched"), out());
    }

    @Test
    void runsEveryTaskInWavesWhenTheClusterHasFewerSlotsThanTasks() throws Exception {
        FakeCluster c = cluster(2, 1);
        int code = run("--master=" + c.url(), "--token-file=" + tokenFile("jm-wc"), "--job=wc", "--tasks=5",
                "--slot=cpu=100,mem=256", "--timeout=40",
                "--command=test \"$GRANARY_JOB\" = wc && test \"$GRANARY_TASKS\" = 5 && test \"$GRANARY_TASK\" -lt 5");

        assertEquals(0, code, out() + err());
        assertTrue(out().startsWith("submitted job=wc tasks=5\n"), out());
        assertTrue(out().matches("(?s).*launched task=0 node=n[12] slot=0\n.*"), out());
        assertTrue(out().matches("(?s).*finished task=4 node=n[12] slot=4 code=0\n.*"), out());
        assertTrue(out().endsWith("progress job=wc done=5/5 running=0 failed=0\n"), out());
        assertEquals(5, c.launches().size(), c.launches().toString());
        assertTrue(c.mostRunning() <= 2, "two slots in the cluster, " + c.mostRunning() + " ran at once");
        assertTrue(c.requests().get(0).full(), "the first request is full");
        assertEquals("", err());
        assertFalse(Files.exists(dir.resolve("state-0")), "the job is over: its progress, hints and directory are gone");
    }

    @Test
    void aFailedTaskRunsAgainWhileRetriesAreLeft() throws Exception {
        FakeCluster c = cluster(1, 2);
        Path once = dir.resolve("once");
        int code = run("--master=" + c.url(), "--token-file=" + tokenFile("jm-r"), "--job=r", "--tasks=3", "--retries=1",
                "--timeout=40", "--command=if [ \"$GRANARY_TASK\" = 1 ] && [ ! -e " + once + " ]; then touch " + once + "; exit 7; fi");

        assertEquals(0, code, out() + err());
        assertTrue(out().contains("finished task=1 node=n1 slot=1 code=7\nretry task=1 attempt=2/2\n"), out());
        assertTrue(out().contains("finished task=1 node=n1 slot=4 code=0\n"), out() + "\n(a run again takes a new slot: 1 + 3 tasks)");
        assertEquals(4, c.launches().size(), c.launches().toString());
        assertTrue(out().endsWith("progress job=r done=3/3 running=0 failed=0\n"), out());
    }

    @Test
    void aTaskThatFailsWithoutRetriesLeftFailsTheRun() throws Exception {
        FakeCluster c = cluster(1, 2);
        int code = run("--master=" + c.url(), "--token-file=" + tokenFile("jm-f"), "--job=f", "--tasks=2", "--timeout=40",
                "--command=test \"$GRANARY_TASK\" != 0");

        assertEquals(1, code, out() + err());
        assertTrue(out().endsWith("progress job=f done=1/2 running=0 failed=1\n"), out());
        assertEquals("granary-jobmaster: job f: 1 of 2 tasks failed (tasks [0])\n", err());
    }

    @Test
    void aRefusedTokenExits3() throws Exception {
        FakeCluster c = cluster(1, 1);
        int code = run("--master=" + c.url(), "--token-file=" + tokenFile("someone-else"), "--job=t", "--tasks=1", "--command=true");
        assertEquals(3, code, err());
        assertTrue(err().startsWith("granary-jobmaster: the master refused the token of job-master/jm-t"), err());
        assertEquals(1, err().lines().count(), err());
    }

    @Test
    void anUnreachableMasterExits4() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        int code = run("--master=http://127.0.0.1:" + port, "--token-file=" + tokenFile("jm-u"), "--job=u", "--tasks=1", "--command=true",
                "--patience=2");
        assertEquals(4, code, err());
        assertTrue(err().startsWith("granary-jobmaster: the master at http://127.0.0.1:" + port + " is unreachable"), err());
    }

    @Test
    void badOptionsExit2WithOneLine() throws Exception {
        String token = tokenFile("jm-b");
        assertEquals(2, run("--master=http://127.0.0.1:1", "--token-file=" + token, "--job=b", "--tasks=zero", "--command=true"));
        assertEquals(2, run("--master=http://127.0.0.1:1", "--token-file=" + token, "--job=b", "--tasks=1"));
        assertEquals(2, run("--master=http://127.0.0.1:1", "--token-file=" + token, "--job=b", "--tasks=1", "--command=true", "--colour=red"));
        assertEquals(2, run("--master=http://127.0.0.1:1", "--token-file=" + dir.resolve("missing"), "--job=b", "--tasks=1", "--command=true"));
        assertEquals(2, run("--master=http://127.0.0.1:1", "--token-file=" + token, "--job=b", "--tasks=1", "--command=true", "--slot=cpu=0"));
        List<String> lines = err().lines().toList();
        assertEquals(5, lines.size(), err());
        assertEquals("granary-jobmaster: option --tasks: expected a whole number, got 'zero' (see --help)", lines.get(0));
        assertEquals("granary-jobmaster: option --command is missing (see --help)", lines.get(1));
        assertTrue(lines.get(2).startsWith("granary-jobmaster: unknown option --colour; known: "), lines.get(2));
        assertTrue(lines.get(3).startsWith("granary-jobmaster: option --token-file: cannot read "), lines.get(3));
        assertTrue(lines.get(4).contains("slot"), lines.get(4));
        assertEquals(0, run("--help"));
        assertTrue(out().startsWith("usage: java -jar granary-jobmaster.jar"), out());
    }

    @Test
    void aJobThatDoesNotFinishInTimeExits5AndIsCancelled() throws Exception {
        FakeCluster c = cluster(1, 1);
        int code = run("--master=" + c.url(), "--token-file=" + tokenFile("jm-s"), "--job=s", "--tasks=1", "--timeout=1",
                "--command=sleep 15");
        assertEquals(5, code, out() + err());
        assertTrue(err().startsWith("granary-jobmaster: job s did not finish within 1 s (done 0/1, running 1, failed 0)"), err());
        assertEquals(List.of("s"), c.requests().get(c.requests().size() - 1).cancels());
    }
}
