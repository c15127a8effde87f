package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import granary.api.model.JobSpec;
import granary.api.model.UnitSpec;
import granary.conformance.kit.processes.Cluster;
import granary.protocol.Envelope;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.link.Paths;
import granary.protocol.link.Reply;
import granary.protocol.link.Tokens;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A deposed leader cannot act (docs/ha.md, "The lease"), with real processes: a ZooKeeper server in
 * this JVM (2 s sessions), two master processes of cluster "it" and one agent process given both.
 *
 * <p>Each round: the leader is frozen with SIGSTOP past its session timeout; once the standby leads
 * with a larger epoch, calls are fired at the frozen one (they wait in its listen backlog), it is
 * resumed with SIGCONT, and the same calls are fired again at once. The calls: an API write
 * ({@code POST /api/v1/jobs} with an operator's token), a new job master's full request offering a
 * job that fits on the agent, and the agent's inbox poll. None may be accepted (no 2xx), and the
 * agent must never log a cap of a job offered only to the frozen leader: a grant it made would
 * reach the agent through the agent's poll, still parked there. The old leader must step down
 * (exit 75) naming ZooKeeper.
 *
 * <p>So that the checks would fail if the old leader granted: before each pause the same calls at
 * the serving leader are accepted (201, 200) and its grant of the job master's job does reach the
 * agent's log (that job is then cancelled, so the next leader's recovery window need not wait for
 * its job master). And the standby's API answers a write 307 with the leader's URL.
 *
 * <p>{@code -Dgranary.haRounds=N} runs N rounds (3 by default). Waits are bounded; nothing is timed
 * in an assertion; the figures are printed.
 */
class PausedLeaderIT {

    private static final int ROUNDS = Integer.getInteger("granary.haRounds", 3);
    private static final int PROBES = 3;
    private static final WireCodec JOB_MASTER = new WireCodec(Role.JOB_MASTER);

    @TempDir
    Path dir;
    private Cluster cluster;
    private TestingServer zk;
    private Tokens tokens;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    /** One call fired at the old leader, and what came of it: an HTTP status, or -1 when it answered nothing. */
    private record Probe(String what, CompletableFuture<HttpResponse<String>> answer) {
        int status() {
            try {
                return answer.get(60, TimeUnit.SECONDS).statusCode();
            } catch (Exception ex) {
                return -1; // the connection was closed by the halt, or refused
            }
        }
    }

    @AfterEach
    void stop() throws IOException {
        if (cluster != null) {
            cluster.close(); // every master (stopped or not: SIGKILL ends a stopped process too) and the agent, by PID
        }
        if (zk != null) {
            zk.close();
        }
    }

    @Test
    void aLeaderResumedAfterItsSuccessorTookOverAcceptsNothingAndSendsNothing() throws Exception {
        // ticks of 200 ms: ZooKeeper grants the 2 s sessions the masters ask for
        zk = new TestingServer(new InstanceSpec(dir.resolve("zk").toFile(), -1, -1, -1, true, -1, 200, -1, Map.of(),
                "127.0.0.1"), true);
        cluster = new Cluster(dir);
        Path agentToken = cluster.token("agent/n1"); // also creates the secret both masters share
        tokens = Tokens.fromFile(dir.resolve("granary.secret"));
        String operator = tokens.issue("operator/it");
        int[] ports = {HaMasters.freePort(), HaMasters.freePort()};
        String[] urls = {"http://127.0.0.1:" + ports[0], "http://127.0.0.1:" + ports[1]};
        Cluster.Proc[] masters = {HaMasters.start(cluster, dir, zk.getConnectString(), 0, ports, urls), null};
        int leader = 0;
        long epoch = HaMasters.awaitEpoch(masters[0], 0);
        masters[1] = HaMasters.start(cluster, dir, zk.getConnectString(), 1, ports, urls);
        HaMasters.awaitStandby("master 1 serves as a standby", masters[1]);
        Cluster.Proc agent = cluster.start("agent n1", Cluster.AGENT_JAR, List.of("--master=" + urls[1] + "," + urls[0],
                "--node=n1", "--room=r1", "--capacity=cpu=10000,mem=65536", "--token-file=" + agentToken,
                "--work-dir=" + dir.resolve("n1"), "--heartbeat=200ms"));

        int accepted = 0;
        int refused = 0;
        int unanswered = 0;
        List<String> rounds = new ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
            int standby = 1 - leader;
            String old = urls[leader];
            Cluster.Proc oldProc = masters[leader];
            HaMasters.await("the leader " + old + " serves (recovery window closed, rebuilt)", () -> HaMasters.serving(old), oldProc);

            // the standby's API points a write at the leader (503 until it has read the leader's znode)
            String standbyUrl = urls[standby];
            List<HttpResponse<String>> atStandby = new ArrayList<>();
            HaMasters.await("the standby " + standbyUrl + " answers a write 307", () -> {
                HttpResponse<String> r = apiWrite(standbyUrl, operator, "standby").join();
                atStandby.add(r);
                assertTrue(r.statusCode() == 307 || r.statusCode() == 503, "a standby's answer to a write: " + r.statusCode() + " " + r.body());
                return r.statusCode() == 307;
            }, masters[standby]);
            assertEquals(old + "/api/v1/jobs", atStandby.get(atStandby.size() - 1).headers().firstValue("Location").orElse(null));

            control(old, operator, round, agent);

            long pid = oldProc.process().pid();
            signal("STOP", pid);
            long stopped = System.nanoTime();
            long newEpoch = HaMasters.awaitEpoch(masters[standby], epoch);
            long takeover = (System.nanoTime() - stopped) / 1_000_000;
            // fired at the frozen leader: they wait in its listen backlog and are read when it resumes
            List<Probe> probes = new ArrayList<>(fire(old, operator, "r" + round + "-q"));
            signal("CONT", pid);
            long resumed = System.nanoTime();
            probes.addAll(fire(old, operator, "r" + round + "-c"));

            int exit = oldProc.exit(HaMasters.BOUND);
            long halted = (System.nanoTime() - resumed) / 1_000_000;
            List<String> outcomes = new ArrayList<>();
            Map<String, Integer> byStatus = new java.util.TreeMap<>();
            for (Probe p : probes) {
                int s = p.status();
                outcomes.add(p.what() + "=" + (s < 0 ? "none" : Integer.toString(s)));
                byStatus.merge(s < 0 ? "none" : Integer.toString(s), 1, Integer::sum);
                if (s >= 200 && s < 300) {
                    accepted++;
                } else if (s < 0) {
                    unanswered++;
                } else {
                    refused++;
                }
            }
            String stepDown = oldProc.stderr().lines().filter(l -> l.contains("stepped down as leader")).findFirst().orElse("");
            assertEquals(75, exit, "the old leader halts with 75 once resumed: " + oldProc);
            assertTrue(stepDown.contains("ZooKeeper at " + zk.getConnectString()), "the step-down names ZooKeeper: " + stepDown);
            assertTrue(outcomes.stream().noneMatch(o -> o.matches(".*=2\\d\\d")),
                    "round " + round + ": the resumed old leader (epoch " + epoch + ") accepted a call after epoch " + newEpoch
                            + " began: " + outcomes);
            assertFalse(agent.stdout().contains("cap unit=lease-"), "round " + round
                    + ": the agent holds a cap of a job offered only to the resumed old leader:\n" + agent.stdout());
            String line = "round " + round + ": SIGSTOP " + old + " (epoch " + epoch + ") -> " + urls[standby] + " leads with epoch "
                    + newEpoch + " after " + takeover + " ms; SIGCONT; old leader exited " + exit + " " + halted
                    + " ms after SIGCONT; its answers to " + probes.size() + " calls (status=count; none: it had halted) "
                    + byStatus + "; " + stepDown.substring(stepDown.indexOf("stepped down"));
            System.out.println("granary-ha paused leader " + line);
            rounds.add(line);

            epoch = newEpoch;
            masters[leader] = HaMasters.start(cluster, dir, zk.getConnectString(), leader, ports, urls); // back as the standby, with empty memory
            Cluster.Proc restarted = masters[leader];
            HaMasters.awaitStandby("the old leader comes back as a standby", restarted);
            leader = standby;
        }
        System.out.println("granary-ha paused leader: " + ROUNDS + " rounds, calls at the resumed old leader: " + accepted
                + " accepted (2xx), " + refused + " refused, " + unanswered + " unanswered (it had halted); caps of their jobs at the agent: "
                + agent.stdout().lines().filter(l -> l.contains("cap unit=lease-")).count());
        assertEquals(0, accepted, String.join("\n", rounds));
        assertTrue(agent.process().isAlive(), "the agent kept running: " + agent);
    }

    /**
     * The same calls the old leader gets after its pause, at the serving leader: accepted, and the
     * grant of the job master's job reaches the agent (then cancelled, and withdrawn at the agent).
     */
    private void control(String url, String operator, int round, Cluster.Proc agent) throws Exception {
        HttpResponse<String> api = apiWrite(url, operator, "ctl-r" + round + "-api").get(30, TimeUnit.SECONDS);
        assertEquals(201, api.statusCode(), "the serving leader takes an API write: " + api.body());
        String jm = "ctl-r" + round;
        long incarnation = System.currentTimeMillis();
        HttpResponse<String> request = message(url, jm, incarnation, 1, new Request(true, List.of(job("ctl-r" + round)),
                List.of(), List.of(), List.of())).get(30, TimeUnit.SECONDS);
        assertEquals(200, request.statusCode(), "the serving leader takes a job master's full request: " + request.body());
        String unit = "cap unit=ctl-r" + round + "/tasks";
        HaMasters.await("the serving leader's grant reaches the agent", () -> agent.stdout().contains(unit + " slots=1"), agent);
        HttpResponse<String> cancel = message(url, jm, incarnation, 2, new Request(false, List.of(), List.of(),
                List.of("ctl-r" + round), List.of())).get(30, TimeUnit.SECONDS);
        assertEquals(200, cancel.statusCode(), cancel.body());
        HaMasters.await("the cancelled control job's cap is withdrawn at the agent", () -> agent.stdout().contains(unit + " slots=0"), agent);
    }

    /**
     * {@value #PROBES} times: an API write, a new job master's full request with a job that fits on
     * the agent, the agent's inbox poll (several of each: more chances to catch a leader that acts).
     */
    private List<Probe> fire(String url, String operator, String tag) {
        List<Probe> out = new ArrayList<>();
        for (int k = 1; k <= PROBES; k++) {
            String id = tag + "-" + k;
            out.add(new Probe("api " + id, apiWrite(url, operator, "lease-" + id + "-api")));
            out.add(new Probe("request " + id, message(url, "probe-" + id, System.currentTimeMillis(), 1,
                    new Request(true, List.of(job("lease-" + id)), List.of(), List.of(), List.of()))));
            out.add(new Probe("inbox " + id, http.sendAsync(HttpRequest.newBuilder(URI.create(url + Paths.INBOX + "?after=0&wait=0"))
                    .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + tokens.issue("agent/n1")).GET().build(),
                    HttpResponse.BodyHandlers.ofString())));
        }
        return out;
    }

    private CompletableFuture<HttpResponse<String>> apiWrite(String url, String operator, String id) {
        String body = "{\"id\": \"" + id + "\", \"group\": \"root.it\", \"user\": \"it\", \"units\": [{\"name\": \"tasks\","
                + " \"slot\": {\"cpu\": 100, \"mem\": 16}, \"desired\": 1}]}";
        return http.sendAsync(HttpRequest.newBuilder(URI.create(url + "/api/v1/jobs")).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + operator).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private CompletableFuture<HttpResponse<String>> message(String url, String jobMaster, long incarnation, long sequence,
                                                            Request request) {
        Sender who = new Sender(Role.JOB_MASTER, jobMaster);
        byte[] body = JOB_MASTER.encode(Envelope.of(who, incarnation, sequence, request));
        return http.sendAsync(HttpRequest.newBuilder(URI.create(url + Paths.MESSAGES)).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + tokens.issue(who)).header("Content-Type", Reply.CONTENT_TYPE)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static JobSpec job(String id) {
        return JobSpec.of(id, "root.it", UnitSpec.builder("tasks").slot(100, 16).desired(1).build());
    }

    /** Sends SIGSTOP or SIGCONT to {@code pid} with kill(1), as the conformance kit's process scenarios do. */
    private static void signal(String name, long pid) throws IOException, InterruptedException {
        Process k = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start();
        if (!k.waitFor(10, TimeUnit.SECONDS)) {
            k.destroyForcibly();
            fail("kill -" + name + " " + pid + " did not return within 10 s");
        }
        assertEquals(0, k.exitValue(), "kill -" + name + " " + pid);
    }
}
