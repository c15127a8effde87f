package granary.launcher;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Real processes of a cluster on loopback for a test: the master (a runnable jar of this module),
 * agents and job masters (the jars of features/agent and features/jobmaster). Output goes to files
 * in the test's directory; every process and its children are killed by PID in {@link #close()}.
 */
final class Cluster implements AutoCloseable {

    /** A started process with its output files. */
    record Proc(String name, Process process, Path out, Path err) {
        String stdout() {
            return read(out);
        }

        String stderr() {
            return read(err);
        }

        private static String read(Path p) {
            try {
                return Files.readString(p);
            } catch (IOException ex) {
                return "(" + ex + ")";
            }
        }

        /** Waits for it to exit, at most {@code timeout}; fails with its output if it does not. */
        int exit(Duration timeout) throws InterruptedException {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                fail(name + " did not exit within " + timeout + "\n--- stdout ---\n" + stdout() + "\n--- stderr ---\n" + stderr());
            }
            return process.exitValue();
        }

        @Override
        public String toString() {
            return name + "\n--- stdout ---\n" + stdout() + "\n--- stderr ---\n" + stderr();
        }
    }

    static final Path AGENT_JAR = Path.of("../agent/target/granary-agent.jar");
    static final Path JOB_MASTER_JAR = Path.of("../jobmaster/target/granary-jobmaster.jar");

    private final Path dir;
    private final List<Proc> started = new ArrayList<>();
    /** Processes no longer below a started one (e.g. workers of an agent killed with -9), killed by PID in close. */
    private final List<Long> alsoKill = new ArrayList<>();
    private OutputStream masterConsole;
    Proc master;
    String url;

    Cluster(Path dir) {
        this.dir = dir;
    }

    Path dir() {
        return dir;
    }

    /** Starts the master on a free loopback port and waits until it listens. */
    Cluster startMaster(Path jar, String... extra) throws IOException, InterruptedException {
        return startMaster("127.0.0.1:0", jar, extra);
    }

    /**
     * Starts a master again on the port of the one before (killed first by the caller), with the same
     * secret file, and waits until it listens; the console commands then go to the new one.
     */
    Cluster restartMaster(Path jar, String... extra) throws IOException, InterruptedException {
        String before = url;
        startMaster(before.substring(before.lastIndexOf('/') + 1), jar, extra);
        if (!url.equals(before)) {
            fail("the master came back on " + url + ", not on " + before);
        }
        return this;
    }

    private Cluster startMaster(String listen, Path jar, String... extra) throws IOException, InterruptedException {
        List<String> args = new ArrayList<>(List.of("--demo=false", "--piped", "--listen=" + listen,
                "--secret=" + dir.resolve("granary.secret")));
        // an HTTPS master (--keystore) prints an https:// URL, matched below like an http:// one
        args.addAll(List.of(extra));
        master = start("master", jar, args);
        masterConsole = master.process().getOutputStream();
        Pattern listening = Pattern.compile("listening on (https?://127\\.0\\.0\\.1:\\d+)");
        long end = System.nanoTime() + It.TIMEOUT.toNanos();
        while (System.nanoTime() < end) {
            Matcher m = listening.matcher(master.stderr());
            if (m.find()) {
                url = m.group(1);
                return this;
            }
            if (!master.process().isAlive()) {
                fail("the master exited with " + master.process().exitValue() + ": " + master);
            }
            Thread.sleep(100);   // a child process: polled, with a deadline
        }
        fail("the master did not listen within " + It.TIMEOUT + ": " + master);
        return this;
    }

    /**
     * Runs a console command on the master (its piped standard input), again every second, until
     * {@code expect} shows in what it printed since; returns that output.
     */
    String console(String command, String expect) throws IOException, InterruptedException {
        int before = master.stdout().length();
        long end = System.nanoTime() + It.TIMEOUT.toNanos();
        long next = 0;
        while (System.nanoTime() < end) {
            if (System.nanoTime() >= next) {
                masterConsole.write((command + "\n").getBytes(StandardCharsets.UTF_8));
                masterConsole.flush();
                next = System.nanoTime() + 1_000_000_000L;
            }
            String out = master.stdout();
            if (out.length() > before && out.substring(before).contains(expect)) {
                return out.substring(before);
            }
            Thread.sleep(100);   // a child process: polled, with a deadline
        }
        fail("'" + command + "' did not print '" + expect + "': " + master);
        return null;
    }

    /** Writes the token of {@code identity} (e.g. {@code agent/n1}) to a file, from the master's secret. */
    Path token(String identity) throws IOException {
        granary.protocol.link.Tokens tokens = granary.protocol.link.Tokens.fromFile(dir.resolve("granary.secret"));
        Path file = dir.resolve(identity.replace('/', '-') + ".token");
        Files.writeString(file, tokens.issue(granary.protocol.link.Tokens.parseIdentity(identity)) + "\n");
        return file;
    }

    Proc agent(String node, String capacity, Path tokenFile, String... extra) throws IOException {
        return agent(List.of(), node, capacity, tokenFile, extra);
    }

    /** An agent whose JVM gets {@code jvm} options first (e.g. the trust store for an HTTPS master). */
    Proc agent(List<String> jvm, String node, String capacity, Path tokenFile, String... extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("--master=" + url, "--node=" + node, "--room=r1",
                "--capacity=" + capacity, "--token-file=" + tokenFile, "--work-dir=" + dir.resolve(node)));
        args.addAll(List.of(extra));
        return start("agent " + node, AGENT_JAR, jvm, args);
    }

    /** Kills {@code pid} too in {@link #close()} (a process that is no longer a descendant of a started one). */
    void alsoKill(long pid) {
        alsoKill.add(pid);
    }

    Proc jobMaster(String job, int tasks, String command, Path tokenFile, String... extra) throws IOException {
        List<String> args = new ArrayList<>(List.of("--master=" + url, "--token-file=" + tokenFile, "--job=" + job,
                "--tasks=" + tasks, "--slot=cpu=100,mem=256", "--command=" + command));
        args.addAll(List.of(extra));
        return start("job master " + job, JOB_MASTER_JAR, args);
    }

    Proc start(String name, Path jar, List<String> args) throws IOException {
        return start(name, jar, List.of(), args);
    }

    Proc start(String name, Path jar, List<String> jvm, List<String> args) throws IOException {
        if (!Files.isRegularFile(jar)) {
            fail(jar + " missing: run 'mvn verify' from the root, which packages it first");
        }
        String java = ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-Djava.io.tmpdir=" + dir));
        command.addAll(jvm);
        command.addAll(List.of("-jar", jar.toAbsolutePath().toString()));
        command.addAll(args);
        String file = name.replace(' ', '-');
        for (int n = 2; Files.exists(dir.resolve(file + ".out")); n++) {
            file = name.replace(' ', '-') + "-" + n; // a process started again (same name) gets its own files
        }
        Path out = dir.resolve(file + ".out");
        Path err = dir.resolve(file + ".err");
        Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        Proc proc = new Proc(name, p, out, err);
        started.add(proc);
        return proc;
    }

    /** Kills every process started here and their children, by PID. */
    @Override
    public void close() {
        for (Proc p : started) {
            p.process().descendants().forEach(ProcessHandle::destroyForcibly);
            p.process().destroyForcibly();
        }
        for (long pid : alsoKill) {
            ProcessHandle.of(pid).ifPresent(h -> {
                h.descendants().forEach(ProcessHandle::destroyForcibly);
                h.destroyForcibly();
            });
        }
        for (Proc p : started) {
            try {
                p.process().waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
