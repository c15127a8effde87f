package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Pattern;
import granary.conformance.kit.processes.Cluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real triangle on loopback: the master runtime, three agent processes and a job master
 * process whose job runs 50 real worker processes to completion (docs/protocol.md).
 */
class ClusterIT {

    @TempDir
    Path dir;
    private Cluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void threeAgentsRunFiftyWorkersOfAJobMasterToCompletion() throws Exception {
        cluster = new Cluster(dir).startMaster(It.runnableJar());
        for (int i = 1; i <= 3; i++) {
            cluster.agent("n" + i, "cpu=400,mem=4096", cluster.token("agent/n" + i));
        }
        cluster.console("granary:agents", "node=n3");
        Cluster.Proc jm = cluster.jobMaster("wave", 50, "echo task $GRANARY_TASK", cluster.token("job-master/jm-wave"));
        int code = jm.exit(Duration.ofSeconds(120));
        assertEquals(0, code, jm.toString());
        String out = jm.stdout();
        assertEquals(50, Pattern.compile("(?m)^finished task=\\d+ node=n\\d slot=\\d+ code=0").matcher(out).results().count(), out);
        assertTrue(out.contains("done=50/50"), out);
        // Every worker ran on an agent, with its output in the agent's log directory.
        long logs = 0;
        for (int i = 1; i <= 3; i++) {
            Path logDir = dir.resolve("n" + i).resolve("logs");
            if (Files.isDirectory(logDir)) {
                try (var files = Files.list(logDir)) {
                    logs += files.filter(f -> f.toString().endsWith(".out")).count();
                }
            }
        }
        assertEquals(50, logs, "one stdout log per worker");
        String agents = cluster.console("granary:agents", "node=n3");
        for (int i = 1; i <= 3; i++) {
            assertTrue(agents.contains("node=n" + i + " state=live"), agents);
        }
        String jms = cluster.console("granary:jobmasters", "id=jm-wave");
        assertTrue(jms.contains("id=jm-wave state="), jms);
        // the agents' and the job master's links moved to HTTP/2 with their first long poll (docs/protocol.md, "Transport")
        String wire = cluster.console("granary:wire", "postsHttp2=");
        java.util.regex.Matcher m = Pattern.compile("posts=(\\d+) .*postsHttp2=(\\d+)").matcher(wire);
        assertTrue(m.find(), wire);
        long posts = Long.parseLong(m.group(1));
        long overHttp2 = Long.parseLong(m.group(2));
        assertTrue(overHttp2 > 0 && overHttp2 >= posts / 2, "most posts over HTTP/2: " + wire);
        System.out.println("the master after the batch: " + wire.strip());
    }

    /**
     * A node that cannot launch anything ({@code logs/} replaced by a file): its agent reports it
     * unhealthy after a few launches, the master stops placing work there, the job master runs the
     * tasks it could not start elsewhere without charging them an attempt and keeps its job off the
     * node — and the batch finishes on the other nodes with exit 0 (docs/agent.md, "Node health").
     */
    @Test
    void aBatchFinishesOnTheOtherNodesWhenOneCannotLaunch() throws Exception {
        cluster = new Cluster(dir).startMaster(It.runnableJar());
        for (int i = 1; i <= 4; i++) {
            cluster.agent("n" + i, "cpu=400,mem=4096", cluster.token("agent/n" + i));
        }
        cluster.console("granary:agents", "node=n4");
        Path logs = dir.resolve("n1").resolve("logs");
        if (Files.isDirectory(logs)) {
            try (var files = Files.list(logs)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    Files.delete(f);
                }
            }
            Files.delete(logs);
        }
        Files.writeString(logs, "not a directory");
        Cluster.Proc jm = cluster.jobMaster("sick", 40, "sleep 0.2; echo task $GRANARY_TASK", cluster.token("job-master/jm-sick"));
        int code = jm.exit(Duration.ofSeconds(120));
        String out = jm.stdout();
        assertEquals(0, code, jm + "\n" + out);
        assertTrue(out.contains("done=40/40"), out);
        assertEquals(40, Pattern.compile("(?m)^finished task=\\d+ node=n[234] slot=\\d+ code=0").matcher(out).results().count(), out);
        assertTrue(out.contains("not-started task="), "a task n1 could not start is said so: " + out);
        String agents = cluster.console("granary:agents", "node=n1");
        assertTrue(Pattern.compile("node=n1 [^\\n]*unhealthy").matcher(agents).find(), "n1 is shown unhealthy: " + agents);
    }

    @Test
    void theReadmesDemoScriptRunsTheTriangleAndCleansUp() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(It.framework().equals("felix"), "the script uses the Felix jar");
        Path root = It.target().toAbsolutePath().getParent().getParent().getParent();
        ProcessBuilder pb = new ProcessBuilder("bash", root.resolve("features/standalone/bin/triangle.sh").toString(), "8", "2")
                .directory(root.toFile()).redirectErrorStream(true).redirectOutput(dir.resolve("triangle.out").toFile());
        pb.environment().put("TMPDIR", dir.toString()); // its work directory goes into the test's
        java.util.Set<Path> before;
        try (var files = Files.list(root)) {
            before = files.collect(java.util.stream.Collectors.toSet());
        }
        java.util.Set<Path> tmpBefore = runtimeTempDirs();
        Process p = pb.start();
        try {
            assertTrue(p.waitFor(150, java.util.concurrent.TimeUnit.SECONDS), "triangle.sh did not end");
            String out = Files.readString(dir.resolve("triangle.out"));
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains("[job master] progress job=demo done=8/8"), out);
            assertTrue(out.contains("[agent n2] launched"), out);
            assertTrue(out.contains("[master] node=n1 state=live"), out);
            assertTrue(p.descendants().noneMatch(ProcessHandle::isAlive), "the script left processes behind");
            try (var files = Files.list(root)) {
                assertEquals(before, files.collect(java.util.stream.Collectors.toSet()), "the script wrote outside its work directory");
            }
            // the runtimes' own temporary files (framework storage) go to the work directory, not java.io.tmpdir
            java.util.Set<Path> runtimes = runtimeTempDirs();
            runtimes.removeAll(tmpBefore);
            assertEquals(java.util.Set.of(), runtimes, "the script's runtimes left their storage in " + System.getProperty("java.io.tmpdir"));
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    /** The runnable jars' storage directories ({@code granary-<digits>}) in this JVM's java.io.tmpdir. */
    private static java.util.Set<Path> runtimeTempDirs() throws java.io.IOException {
        try (var files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.filter(f -> f.getFileName().toString().matches("granary-\\d+")).collect(java.util.stream.Collectors.toSet());
        }
    }

    @Test
    void overHttpsAnAgentThatTrustsTheMastersCertificateRegisters() throws Exception {
        Path keystore = dir.resolve("master.p12");
        Process keytool = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "granary", "-keyalg", "RSA", "-keysize", "2048", "-validity", "2",
                "-keystore", keystore.toString(), "-storetype", "PKCS12", "-storepass", "s3cret!", "-keypass", "s3cret!",
                "-dname", "CN=localhost", "-ext", "san=ip:127.0.0.1").redirectErrorStream(true).start();
        try {
            assertTrue(keytool.waitFor(60, java.util.concurrent.TimeUnit.SECONDS), "keytool did not finish");
            assertEquals(0, keytool.exitValue(), new String(keytool.getInputStream().readAllBytes()));
        } finally {
            keytool.destroyForcibly();
        }
        Files.writeString(dir.resolve("password"), "s3cret!\n");
        cluster = new Cluster(dir).startMaster(It.runnableJar(), "--keystore=" + keystore,
                "--keystore-password-file=" + dir.resolve("password"));
        assertTrue(cluster.url().startsWith("https://"), cluster.url());
        // Agents and job masters trust the master's certificate through the JDK's standard trust store settings.
        java.util.List<String> trust = java.util.List.of("-Djavax.net.ssl.trustStore=" + keystore,
                "-Djavax.net.ssl.trustStorePassword=s3cret!", "-Djavax.net.ssl.trustStoreType=PKCS12");
        // the agent serves plans over HTTPS too (docs/security.md, "TLS for plans"): the job master trusts its key
        cluster.agent(trust, "n1", "cpu=400,mem=4096", cluster.token("agent/n1"), "--keystore=" + keystore,
                "--keystore-password-file=" + dir.resolve("password"));
        String agents = cluster.console("granary:agents", "node=n1 state=live");
        assertTrue(agents.contains("node=n1 state=live") && agents.contains("https://127.0.0.1:"), agents);
        Cluster.Proc jm = cluster.jobMaster(trust, "tls", 6, "echo task $GRANARY_TASK", cluster.token("job-master/jm-tls"));
        assertEquals(0, jm.exit(Duration.ofSeconds(120)), "a batch planned over HTTPS: " + jm);
        Cluster.Proc untrusting = cluster.agent("n2", "cpu=400,mem=4096", cluster.token("agent/n2"), "--register-retries=0");
        assertEquals(4, untrusting.exit(Duration.ofSeconds(60)), "an agent that does not trust the certificate cannot reach it: "
                + untrusting);
    }

    @Test
    void anAgentWithAWrongTokenOrTheTokenOfAnotherNodeCannotRegister() throws Exception {
        cluster = new Cluster(dir).startMaster(It.runnableJar());
        Path forged = dir.resolve("forged.token");
        Files.writeString(forged, "agent/n1.bm90LWEtcmVhbC1tYWM\n");
        Cluster.Proc wrong = cluster.agent("n1", "cpu=400,mem=4096", forged);
        assertEquals(3, wrong.exit(Duration.ofSeconds(60)), wrong.toString());
        Cluster.Proc other = cluster.agent("n2", "cpu=400,mem=4096", cluster.token("agent/n1"));
        assertEquals(3, other.exit(Duration.ofSeconds(60)), other.toString());
        assertTrue(other.stderr().contains("n2"), other.toString());
        String agents = cluster.console("granary:agents", "no agents");
        assertTrue(agents.contains("no agents have registered"), agents);
    }
}
