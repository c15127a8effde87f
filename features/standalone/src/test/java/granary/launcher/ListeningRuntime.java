package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The runnable jar as a child process that serves HTTP ({@code --listen=127.0.0.1:0}): started in
 * a directory of the test's, its port read from its standard error, stopped at the end of its input,
 * killed by its PID when the test ends.
 */
final class ListeningRuntime implements AutoCloseable {

    static final Pattern LISTENING = Pattern.compile("granary: listening on (https?)://127\\.0\\.0\\.1:(\\d+)");

    private final Process process;
    private final Path out;
    private final Path err;

    private ListeningRuntime(Process process, Path out, Path err) {
        this.process = process;
        this.out = out;
        this.err = err;
    }

    static ListeningRuntime start(Path tmp, String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-Djava.io.tmpdir=" + tmp, "-jar",
                It.runnableJar().toString()));
        command.addAll(List.of(args));
        Path out = Files.createTempFile(tmp, "child-", ".out");
        Path err = Files.createTempFile(tmp, "child-", ".err");
        Process p = new ProcessBuilder(command).directory(tmp.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        return new ListeningRuntime(p, out, err);
    }

    /** The port of the stderr line {@code granary: listening on SCHEME://127.0.0.1:PORT}, waited for with a deadline. */
    int awaitListening(String scheme) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + It.TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            Matcher m = LISTENING.matcher(Files.readString(err));
            if (m.find()) {
                assertEquals(scheme, m.group(1), Files.readString(err));
                return Integer.parseInt(m.group(2));
            }
            if (!process.isAlive()) {
                fail("exited " + process.exitValue() + " before listening: " + Files.readString(err));
            }
            Thread.sleep(50);   // a child's output file: polled, with a deadline
        }
        fail("no 'granary: listening on' within " + It.TIMEOUT.toSeconds() + " s: " + Files.readString(err));
        return -1;
    }

    /** Ends standard input, so the runtime stops, and waits for it. */
    ChildProcess.Result finish() throws IOException, InterruptedException {
        try (OutputStream in = process.getOutputStream()) {
            in.flush();
        }
        assertTrue(process.waitFor(It.TIMEOUT.toSeconds(), TimeUnit.SECONDS), "did not exit at end of input");
        return new ChildProcess.Result(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertNotNull(process);
    }
}
