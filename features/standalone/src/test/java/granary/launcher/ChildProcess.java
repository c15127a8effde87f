package granary.launcher;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code java -jar} in a child process, with the same java as the tests, piping text to its standard input. */
final class ChildProcess {

    /** What the child did. */
    record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout ---\n" + out + "\n--- stderr ---\n" + err;
        }
    }

    private ChildProcess() {
    }

    /**
     * Runs the jar with {@code stdin} piped in (then closed) and waits for it to exit.
     *
     * @param tmp the child's java.io.tmpdir (its framework storage goes there) and working directory
     * @param args the jar's arguments, after {@code --listen=off}: these runs are about the console, and
     *             HttpListenIT's about the HTTP server (a later {@code --listen} wins)
     */
    static Result run(Path jar, Path tmp, String stdin, String... args) throws IOException, InterruptedException {
        String java = ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-Djava.io.tmpdir=" + tmp, "-jar", jar.toString(),
                "--listen=off"));
        command.addAll(List.of(args));
        Path out = Files.createTempFile("child-", ".out");
        Path err = Files.createTempFile("child-", ".err");
        Process p = new ProcessBuilder(command).directory(tmp.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try (OutputStream in = p.getOutputStream()) {
            in.write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        if (!p.waitFor(It.TIMEOUT.toSeconds() * 2, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            fail("java -jar " + jar.getFileName() + " " + String.join(" ", args) + " did not exit; stdout: "
                    + Files.readString(out) + "\nstderr: " + Files.readString(err));
        }
        Result r = new Result(p.exitValue(), Files.readString(out), Files.readString(err));
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
        return r;
    }
}
