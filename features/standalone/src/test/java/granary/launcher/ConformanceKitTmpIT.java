package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import granary.conformance.kit.processes.Cluster;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The conformance kit's {@code --processes} as an operator runs it ({@code java -jar
 * granary-conformance.jar}, on the jars of this build), with its {@code java.io.tmpdir} a fresh
 * directory under target/: a run whose rows hold leaves nothing there (it deletes the leftovers of a
 * dead run too), and a run stopped by SIGTERM kills what it started and leaves nothing either
 * (docs/recovery.md, "Real processes"). The rows' JVMs keep no performance-data file in /tmp.
 */
class ConformanceKitTmpIT {

    /** The kit's jar, built before this module (features/standalone's tests depend on it). */
    private static final Path KIT = Path.of("../conformance/target/granary-conformance.jar");

    private final Path tmp = It.target().resolve("kit-tmp-" + UUID.randomUUID()).toAbsolutePath();
    private final Path log = It.target().resolve("kit-" + UUID.randomUUID() + ".txt").toAbsolutePath();
    private Process kit;

    @BeforeEach
    void once() {
        Assumptions.assumeTrue(It.framework().equals("felix"), "the kit runs the Felix runtime's jar: once, on the Felix run");
    }

    @AfterEach
    void stop() throws IOException {
        if (kit != null) {
            kit.descendants().forEach(ProcessHandle::destroyForcibly);
            kit.destroyForcibly();
        }
        Cluster.deleteTree(tmp);
        Files.deleteIfExists(log);
    }

    private Process start(String... args) throws IOException {
        assertTrue(Files.isRegularFile(KIT), KIT + " missing: build from the root");
        Files.createDirectories(tmp);
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Djava.io.tmpdir=" + tmp, "-jar", KIT.toString()));
        command.addAll(List.of(args));
        kit = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return kit;
    }

    private String output() throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    private List<Path> left() throws IOException {
        try (Stream<Path> all = Files.walk(tmp)) {
            return all.filter(p -> !p.equals(tmp)).toList();
        }
    }

    @Test
    void aRunWhoseRowsHoldLeavesNothingInItsTemporaryDirectory() throws Exception {
        // what a kit killed with -9 leaves: its directory, named after a process that no longer runs
        Process gone = new ProcessBuilder("true").start();
        assertTrue(gone.waitFor(10, TimeUnit.SECONDS));
        Path dead = Files.createDirectories(tmp.resolve("granary-conformance-" + gone.pid() + "-1/P1"));
        Files.writeString(dead.resolve("master.out"), "a dead run's log");

        start("--schedules", "0", "--processes", "--rows", "P1");

        assertTrue(kit.waitFor(5, TimeUnit.MINUTES), "the kit did not end within 5 minutes");
        String out = output();
        assertEquals(0, kit.exitValue(), out);
        assertTrue(out.contains("P1    | M kill -9 (real processes)") && out.contains("the rows' temporary directory is deleted"), out);
        assertEquals(List.of(), left(), "the kit's java.io.tmpdir after a run that held\n" + out);
    }

    @Test
    void aRunStoppedBySigtermKillsWhatItStartedAndLeavesNothing() throws Exception {
        start("--schedules", "0", "--processes", "--rows", "P2");
        // the row's cluster runs: the master listens and both agents are started
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        List<ProcessHandle> started = List.of();
        while (started.size() < 3) {
            assertTrue(System.nanoTime() < deadline && kit.isAlive(), "the row's cluster did not start:\n" + output());
            Thread.sleep(200);   // another process's state: polled, with a deadline
            started = kit.descendants().filter(h -> h.info().command().orElse("").endsWith("java")).toList();
        }
        Optional<Path> row = find("P2");
        assertTrue(row.isPresent(), "the row's directory is in the kit's java.io.tmpdir: " + left());

        kit.destroy();   // SIGTERM: the kit's shutdown hook

        assertTrue(kit.waitFor(60, TimeUnit.SECONDS), "the kit did not stop on SIGTERM:\n" + output());
        for (ProcessHandle h : started) {
            assertTrue(h.onExit().get(10, TimeUnit.SECONDS) != null && !h.isAlive(), "pid " + h.pid() + " still runs");
            assertFalse(Files.exists(Path.of("/tmp/hsperfdata_" + System.getProperty("user.name"), Long.toString(h.pid()))),
                    "pid " + h.pid() + " left its JVM's performance data in /tmp");
        }
        assertEquals(List.of(), left(), "the kit's java.io.tmpdir after SIGTERM\n" + output());
    }

    private Optional<Path> find(String name) throws IOException {
        try (Stream<Path> all = Files.walk(tmp, 2)) {
            return all.filter(p -> p.getFileName().toString().equals(name)).findFirst();
        }
    }
}
