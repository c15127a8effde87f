package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's recipe: a stock Apache Felix 7 runtime ({@code bin/felix.jar} = org.apache.felix.main,
 * {@code conf/config.properties} with the runtime's properties, a {@code bundle/} directory with Gogo
 * and the jars of {@code target/felix-bundles}) — {@code target/stock-felix}, copied. Runs {@code java -jar bin/felix.jar} as a child process, reads
 * {@code lb -s} from its Gogo shell until every bundle is Active, then asks {@code granary:status}.
 * Felix run only (failsafe excludes it from the Equinox run).
 */
class StockFelixIT {

    private static final Pattern LB_LINE = Pattern.compile("^\\s*(\\d+)\\|(\\w+)\\s*\\|\\s*\\d+\\|(\\S+) ");

    @TempDir
    Path felix;

    @Test
    void theFelixBundlesAllBecomeActiveInAStockFelix() throws Exception {
        // target/stock-felix is the recipe applied to Maven Central artifacts: run a copy of it
        copyTree(It.target().resolve("stock-felix"), felix);
        // its HTTP server on a free port of 127.0.0.1, not the default 7070, which may be taken
        Path config = felix.resolve("conf/config.properties");
        Files.writeString(config, Files.readString(config).replace("org.osgi.service.http.port=7070", "org.osgi.service.http.port=0"));
        Set<String> expected = new TreeSet<>();
        try (Stream<Path> jars = Files.walk(felix.resolve("bundle"))) {   // bundle/ and bundle/first/
            for (Path jar : jars.filter(j -> j.toString().endsWith(".jar")).toList()) {
                expected.add(symbolicName(jar));
            }
        }
        assertTrue(expected.containsAll(List.of("org.apache.felix.gogo.jline", "org.jline", "granary.engine", "granary.policy.fifo",
                        "granary.policy.sjf", "org.apache.felix.http.jetty12", "slf4j.simple")),
                expected::toString);

        String java = ProcessHandle.current().info().command().orElseThrow();
        Process p = new ProcessBuilder(java, "-jar", "bin/felix.jar").directory(felix.toFile())
                .redirectErrorStream(true).start();
        StringBuffer output = new StringBuffer();
        Thread reader = new Thread(() -> copy(p, output), "felix-output");
        reader.setDaemon(true);
        reader.start();
        try (OutputStream shell = p.getOutputStream()) {
            long deadline = System.nanoTime() + It.TIMEOUT.toNanos();
            Map<String, String> states = Map.of();
            while (!allActive(states, expected)) {
                if (System.nanoTime() > deadline) {
                    fail("bundles not all Active within " + It.TIMEOUT.toSeconds() + " s: " + states + "\n" + output);
                }
                output.setLength(0);
                send(shell, "lb -s");
                Thread.sleep(500);   // a child process's shell: polled with a deadline, nothing to wait on
                states = parseLb(output.toString());
            }
            output.setLength(0);
            send(shell, "lb -s | grep granary");
            It.await("lb -s | grep granary", () -> output.toString().contains("granary.engine"), output::toString, It.TIMEOUT);
            output.setLength(0);
            send(shell, "granary:status");
            It.await("granary:status output", () -> output.toString().contains("policy.unit-order="), output::toString,
                    It.TIMEOUT);
            assertTrue(output.toString().contains("policy.unit-order=sjf"), "the runtime's default unit order\n" + output);
        }   // end of input: the Gogo shell stops the framework
        assertTrue(p.waitFor(It.TIMEOUT.toSeconds(), TimeUnit.SECONDS), "felix did not stop at end of input\n" + output);
        assertEquals(0, p.exitValue(), output::toString);
    }

    /**
     * On a real terminal (util-linux {@code script}), the stock Felix's console edits lines: the up
     * arrow brings the last command back (a dumb terminal would echo {@code ^[[A}). The Granary console
     * starts Gogo's JLine shell with JLine's class loader, where JLine finds its terminal.
     */
    @Test
    void theStockFelixConsoleIsNotADumbTerminal() throws Exception {
        Path script = Path.of("/usr/bin/script");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(script), "no " + script);
        copyTree(It.target().resolve("stock-felix"), felix);
        Path config = felix.resolve("conf/config.properties");
        Files.writeString(config, Files.readString(config).replace("org.osgi.service.http.port=7070", "org.osgi.service.http.port=0"));
        String java = ProcessHandle.current().info().command().orElseThrow();
        // JLine's native library goes under the test's directory, not /tmp, even if felix must be killed
        String command = "stty cols 160 rows 40; exec " + java + " -Djava.io.tmpdir=" + felix.resolve("tmp") + " -jar bin/felix.jar";
        Files.createDirectories(felix.resolve("tmp"));
        Process p = new ProcessBuilder(script.toString(), "-qfec", command, "/dev/null").directory(felix.toFile())
                .redirectErrorStream(true).start();
        StringBuffer output = new StringBuffer();
        Thread reader = new Thread(() -> copy(p, output), "felix-terminal");
        reader.setDaemon(true);
        reader.start();
        try (OutputStream keys = p.getOutputStream()) {
            It.await("the prompt", () -> output.toString().contains("g! "), output::toString, It.TIMEOUT);
            // the commands come with the console bundle, which starts the shell: wait for an answer
            long deadline = System.nanoTime() + It.TIMEOUT.toNanos();
            while (!output.toString().contains("policy.unit-order=")) {
                if (System.nanoTime() > deadline) {
                    fail("no status on the terminal\n" + output);
                }
                keys(keys, "granary:status\r");
                Thread.sleep(1000);   // a child process's terminal: polled with a deadline
            }
            int before = count(output.toString(), "policy.unit-order=");
            keys(keys, "\u001bOA");   // the up arrow, as a terminal in JLine's keypad mode sends it
            Thread.sleep(300);
            keys(keys, "\r");
            It.await("the status again", () -> count(output.toString(), "policy.unit-order=") > before, output::toString,
                    It.TIMEOUT);
            assertTrue(!output.toString().contains("^[[A") && !output.toString().contains("dumb terminal"), output::toString);
            keys(keys, "exit\r");
            assertTrue(p.waitFor(It.TIMEOUT.toSeconds(), TimeUnit.SECONDS), "felix did not stop on exit\n" + output);
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> all = Files.walk(from)) {
            for (Path p : all.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }

    private static boolean allActive(Map<String, String> states, Set<String> expected) {
        return states.keySet().containsAll(expected)
                && expected.stream().allMatch(bsn -> "Active".equals(states.get(bsn)));
    }

    /** Symbolic name to state, from {@code lb -s} lines such as {@code "   12|Active     |    1|granary.demo (0.1.0)|0.1.0"}. */
    static Map<String, String> parseLb(String text) {
        Map<String, String> states = new TreeMap<>();
        for (String line : text.split("\\R")) {
            Matcher m = LB_LINE.matcher(line.replace("g! ", ""));
            if (m.find()) {
                states.put(m.group(3), m.group(2));
            }
        }
        return states;
    }

    private static String symbolicName(Path jar) throws IOException {
        try (JarFile j = new JarFile(jar.toFile())) {
            return j.getManifest().getMainAttributes().getValue("Bundle-SymbolicName").split(";")[0].trim();
        }
    }

    private static void send(OutputStream shell, String command) throws IOException {
        shell.write((command + "\n").getBytes(StandardCharsets.UTF_8));
        shell.flush();
    }

    /** Keys as typed on a terminal, sent as they are. */
    private static void keys(OutputStream terminal, String keys) throws IOException {
        terminal.write(keys.getBytes(StandardCharsets.UTF_8));
        terminal.flush();
    }

    private static void copy(Process p, StringBuffer output) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            int c;
            while ((c = r.read()) >= 0) {
                output.append((char) c);
            }
        } catch (IOException e) {
            output.append("\n[output closed: ").append(e).append(']');
        }
    }
}
