package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runtime's work directory is named after its process; a start deletes those a killed runtime
 * left behind (its process is gone), never one of a running process nor anything else.
 */
class WorkDirectoryTest {

    @TempDir
    Path parent;

    @Test
    void aStartRemovesTheDirectoriesOfKilledRuntimesOnly() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        assertTrue(gone.waitFor(30, TimeUnit.SECONDS));
        Path leftOver = Files.createDirectories(parent.resolve("granary-" + gone.pid() + "-123/storage"));
        Files.writeString(leftOver.resolve("bundle.jar"), "x");
        Path running = Files.createDirectories(parent.resolve("granary-" + ProcessHandle.current().pid() + "-456"));
        Path other = Files.createDirectories(parent.resolve("granary-notapid"));
        Path file = Files.writeString(parent.resolve("granary-1-file"), "not a directory");

        Path work = Main.workDirectory(parent.toString());

        assertFalse(Files.exists(leftOver.getParent()), "a killed runtime's directory is removed");
        assertTrue(Files.isDirectory(running) && Files.isDirectory(other) && Files.exists(file), "nothing else is");
        assertTrue(work.getFileName().toString().startsWith("granary-" + ProcessHandle.current().pid() + "-"), work.toString());
        assertEquals(parent, work.getParent(), "where the operator says");
    }
}
