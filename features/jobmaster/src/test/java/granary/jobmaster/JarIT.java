package granary.jobmaster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** target/granary-jobmaster.jar run as a real process (java -jar) against the fake master and agents. */
@Timeout(60)
class JarIT {

    @TempDir
    Path dir;

    @Test
    void theJarRunsAJobToTheEndAndExits0() throws Exception {
        Path jar = Path.of(System.getProperty("jobmaster.jar", "target/granary-jobmaster.jar"));
        assertTrue(Files.isRegularFile(jar), "build the jar first: " + jar);
        Path token = dir.resolve("token");
        Files.writeString(token, FakeCluster.token("jm-it") + "\n");
        Path stdout = dir.resolve("stdout");
        Path stderr = dir.resolve("stderr");
        Process p = null;
        try (FakeCluster cluster = new FakeCluster(2, 2)) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            p = new ProcessBuilder(List.of(java, "-Xmx64m", "-jar", jar.toString(), "--master=" + cluster.url(),
                    "--token-file=" + token, "--job=it", "--tasks=6", "--slot=cpu=100,mem=256", "--timeout=40",
                    "--command=echo task $GRANARY_TASK of $GRANARY_TASKS", "--state=" + dir.resolve("state")))
                    .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
            boolean ended = p.waitFor(45, TimeUnit.SECONDS);
            String out = Files.readString(stdout, StandardCharsets.UTF_8);
            String err = Files.readString(stderr, StandardCharsets.UTF_8);
            assertTrue(ended, "still running after 45 s; stdout:\n" + out + "\nstderr:\n" + err);
            assertEquals(0, p.exitValue(), out + err);
            assertTrue(out.startsWith("submitted job=it tasks=6\n"), out);
            assertTrue(out.matches("(?s).*launched task=5 node=n[12] slot=5\n.*"), out);
            assertTrue(out.matches("(?s).*finished task=0 node=n[12] slot=0 code=0\n.*"), out);
            assertTrue(out.endsWith("progress job=it done=6/6 running=0 failed=0\n"), out);
            assertEquals(6, cluster.launches().size(), cluster.launches().toString());
        } finally {
            if (p != null && p.isAlive()) {
                long pid = p.pid();
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
                assertTrue(!p.isAlive(), "process " + pid + " would not die");
            }
        }
    }
}
