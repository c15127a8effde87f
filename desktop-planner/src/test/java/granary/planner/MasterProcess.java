package granary.planner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real master for the planner's integration tests: the standalone runnable jar as a child process
 * on a free loopback port ({@code --listen=127.0.0.1:0}, the port read from its standard error), with
 * its own secret and tokens, killed by its PID when the test closes it — also when the test failed.
 */
public final class MasterProcess implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("granary: listening on http://127\\.0\\.0\\.1:(\\d+)");
    private static final Duration TIMEOUT = Duration.ofSeconds(90);

    private final Process process;
    private final Path dir;
    private final Path err;
    private final int port;

    private MasterProcess(Process process, Path dir, Path err, int port) {
        this.process = process;
        this.dir = dir;
        this.err = err;
        this.port = port;
    }

    public static Path jar() {
        Path jar = Path.of(System.getProperty("standalone.jar", "../features/standalone/target/granary-standalone.jar"));
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the master's runnable jar is not at " + jar.toAbsolutePath()
                    + ": build the reactor first (mvn -B -ntp -DskipTests package)");
        }
        return jar.toAbsolutePath();
    }

    private static String java() {
        return ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** Starts a master in {@code dir} with these extra arguments (e.g. {@code --demo=false}, {@code --config=...}). */
    public static MasterProcess start(Path dir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(java(), "-Djava.io.tmpdir=" + dir, "-jar", jar().toString(),
                "--piped", "--listen=127.0.0.1:0", "--secret=" + dir.resolve("granary.secret")));
        command.addAll(List.of(args));
        Path out = dir.resolve("master.out");
        Path err = dir.resolve("master.err");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            return new MasterProcess(p, dir, err, awaitPort(p, err));
        } catch (IOException | InterruptedException | RuntimeException e) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw e;
        }
    }

    private static int awaitPort(Process p, Path err) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            Matcher m = LISTENING.matcher(Files.readString(err));
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            if (!p.isAlive()) {
                throw new IllegalStateException("the master exited " + p.exitValue() + " before listening: " + Files.readString(err));
            }
            Thread.sleep(50);   // a child's output file: polled, with a deadline
        }
        throw new IllegalStateException("no 'granary: listening on' within " + TIMEOUT.toSeconds() + " s: " + Files.readString(err));
    }

    /** A token of this master's secret, e.g. {@code admin/ada}, issued by the jar's {@code --issue-token}. */
    public String token(String identity) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(java(), "-jar", jar().toString(), "--issue-token=" + identity,
                "--secret=" + dir.resolve("granary.secret")).directory(dir.toFile()).redirectErrorStream(true).start();
        try {
            String outText = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(TIMEOUT.toSeconds(), TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("--issue-token=" + identity + " failed: " + outText);
            }
            return outText.strip();
        } finally {
            p.destroyForcibly();
        }
    }

    public String url() {
        return "http://127.0.0.1:" + port;
    }

    /** What the master printed on standard error so far, for failure messages. */
    public String log() {
        try {
            return Files.readString(err);
        } catch (IOException e) {
            return "(" + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
