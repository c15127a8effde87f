package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every shell block of README.md and of docs/*.md works when pasted into bash, from the repository's
 * root, on the built jars — or says in the markdown why it is not run here. Run in the Felix pass
 * only: the commands do not depend on it.
 *
 * <p>What is a shell block: a fenced block without a language, or {@code sh}, {@code bash},
 * {@code shell}, {@code console}. Output, diagrams and file formats carry their own language
 * ({@code text}, {@code json}, {@code java}, {@code yaml}, {@code properties}); a {@code text} block
 * whose lines look like commands fails here, so a command cannot hide as text.
 *
 * <p>Markers, HTML comments (invisible when rendered) on the lines right before the block's fence:
 * <ul>
 * <li>{@code <!-- not run: REASON -->}: the block is not run; the reason (what to change, or which
 *     test covers it) is required.</li>
 * <li>{@code <!-- not run "PREFIX": REASON -->}: the block's commands (or parts of a {@code a && b}
 *     line) that start with PREFIX are not run, the others are (a build's {@code mvn} line before the
 *     command it builds for: this test runs inside that build, on what it built).</li>
 * </ul>
 *
 * <p>How a block runs: its commands in order (lines joined at a trailing backslash; comment lines
 * skipped), each through {@code bash -c} in one scratch directory per block under this module's
 * {@code target/}, which links the repository's folders, so that files the commands write (tokens,
 * secrets, an agent's work directory, sim-results/) land there. A command that serves until stopped —
 * a master ({@code granary-standalone*.jar} with {@code --listen}) or an agent
 * ({@code granary-agent.jar}) — is started in the background (its standard input stays open, as a
 * terminal's would), a master is waited for until it says it listens, and every one is stopped by
 * its PID when the block ends. The others must exit 0 (curl with {@code --max-time} may end with
 * its code 28, which is what the option asks for) with no error on standard error; a curl answer
 * must not be empty nor an error (no problem JSON, no non-2xx status line). In a
 * transcript block ({@code $ } before each command) the lines after a command are its expected
 * output: each must match a line it printed (spaces collapsed; {@code ...} stands for anything).
 *
 * <p>The only change made to a command: {@code 127.0.0.1:7070} becomes {@code 127.0.0.1:PORT}, a free
 * port, in every command of the block, so that a master of another test or of the machine's user
 * does not collide. The environment sets java.io.tmpdir (through {@code JAVA_TOOL_OPTIONS}, whose
 * notice on standard error is ignored) and {@code TMPDIR} to the scratch directory, so that nothing
 * lands in /tmp even if a process must be killed.
 */
class ReadmeExamplesIT {

    private static final Set<String> SHELL = Set.of("", "sh", "bash", "shell", "console");
    private static final Pattern FENCE = Pattern.compile("^```(\\S*)\\s*$");
    private static final Pattern MARKER = Pattern.compile("^<!-- not run(?: \"([^\"]*)\")?:(.*?)-->\\s*$");
    /** The start of a line that is a command, in a block that claims to be something else. */
    private static final Pattern LOOKS_LIKE_COMMAND = Pattern.compile(
            "^(\\$ |java -jar |mvn |curl |printf |cd |cat |ls |ps |chmod |\\S+\\.sh\\b).*");
    private static final String LOCAL = "127.0.0.1:7070";
    private static final List<String> LINKED = List.of("features", "bundles", "benchmarks", "docs", "desktop-planner");

    /** One fenced block of a markdown file, with the markers before it. */
    record Block(String file, int line, String language, List<String> lines, String reason, Map<String, String> skipped) {
        String where() {
            return file + ":" + line;
        }

        boolean shell() {
            return SHELL.contains(language);
        }
    }

    /** One command of a block, and the output a transcript expects of it. */
    record Command(String text, List<String> expected) {
    }

    private static Path root() {
        return It.target().toAbsolutePath().getParent().getParent().getParent();
    }

    /** README.md and every page of docs/. */
    private static List<Path> pages() throws IOException {
        Path root = root();
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md")));
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            docs.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    private static List<Block> allBlocks() throws IOException {
        List<Block> all = new ArrayList<>();
        for (Path page : pages()) {
            all.addAll(blocks(root().relativize(page).toString(), Files.readString(page)));
        }
        return all;
    }

    /**
     * Each shell block runs as pasted, or carries a marker with its reason; markers stand right before
     * a block and every skipped prefix names a command of it; no command hides in a text block.
     */
    @Test
    void everyShellBlockRunsOrSaysWhyNot() throws IOException {
        assumeTrue(It.framework().equals("felix"), "once per build");
        List<Block> all = allBlocks();
        List<String> problems = new ArrayList<>();
        int shell = 0;
        for (Block b : all) {
            if (!b.shell()) {
                if (b.reason() != null || !b.skipped().isEmpty()) {
                    problems.add(b.where() + ": a 'not run' marker on a " + b.language() + " block: only shell blocks run");
                }
                if (!Set.of("json", "java", "yaml", "properties").contains(b.language())) {
                    b.lines().stream().filter(l -> LOOKS_LIKE_COMMAND.matcher(l).matches()).findFirst().ifPresent(l ->
                            problems.add(b.where() + ": a " + b.language() + " block with a command line ('" + l
                                    + "'): make it a shell block (no language), run here or marked <!-- not run: reason -->"));
                }
                continue;
            }
            shell++;
            if (b.reason() != null && b.reason().strip().length() < 10) {
                problems.add(b.where() + ": a 'not run' marker needs its reason (what to change, or which test covers it),"
                        + " got '" + b.reason().strip() + "'");
            }
            for (Map.Entry<String, String> s : b.skipped().entrySet()) {
                if (s.getValue().strip().length() < 10) {
                    problems.add(b.where() + ": the marker for \"" + s.getKey() + "\" needs its reason, got '"
                            + s.getValue().strip() + "'");
                }
                if (commands(b).stream().flatMap(c -> parts(c.text()).stream()).noneMatch(p -> p.startsWith(s.getKey()))) {
                    problems.add(b.where() + ": the marker for \"" + s.getKey() + "\" names no command of the block");
                }
            }
            if (b.reason() == null && commands(b).isEmpty()) {
                problems.add(b.where() + ": a shell block with no command: give output its language (text)");
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
        assertTrue(shell >= 20, "shell blocks found: " + shell);
        assertTrue(all.stream().filter(b -> b.shell() && b.reason() == null).count() >= 6,
                "the README and docs have shell blocks that run");
    }

    /** One test per shell block that is run (blocks with a 'not run' marker are left out). */
    @TestFactory
    Stream<DynamicTest> everyShellBlockRunsAsPasted() throws IOException {
        assumeTrue(It.framework().equals("felix"), "once per build");
        return allBlocks().stream().filter(b -> b.shell() && b.reason() == null)
                .map(b -> DynamicTest.dynamicTest(b.where(), () -> run(b)));
    }

    /** The fenced blocks of a markdown text, with the markers on the lines right before each. */
    static List<Block> blocks(String file, String markdown) {
        List<Block> out = new ArrayList<>();
        String[] lines = markdown.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher open = FENCE.matcher(lines[i]);
            if (!open.matches()) {
                Matcher stray = MARKER.matcher(lines[i].strip());
                if (stray.matches() && !(i + 1 < lines.length && (MARKER.matcher(lines[i + 1].strip()).matches()
                        || FENCE.matcher(lines[i + 1]).matches()))) {
                    fail(file + ":" + (i + 1) + ": a 'not run' marker not right before a block");
                }
                continue;
            }
            String reason = null;
            Map<String, String> skipped = new LinkedHashMap<>();
            for (int k = i - 1; k >= 0; k--) {
                Matcher m = MARKER.matcher(lines[k].strip());
                if (!m.matches()) {
                    break;
                }
                if (m.group(1) == null) {
                    reason = m.group(2);
                } else {
                    skipped.put(m.group(1), m.group(2));
                }
            }
            int start = i;
            List<String> body = new ArrayList<>();
            for (i++; i < lines.length && !lines[i].equals("```"); i++) {
                body.add(lines[i]);
            }
            assertTrue(i < lines.length, file + ":" + (start + 1) + ": the block is not closed");
            out.add(new Block(file, start + 1, open.group(1), body, reason, skipped));
        }
        return out;
    }

    /**
     * A block's commands: lines joined at a trailing backslash, a here-document kept with its
     * command, comment lines and blank lines left out; in a transcript ({@code $ } lines) the other
     * lines are the expected output of the command before them.
     */
    static List<Command> commands(Block b) {
        boolean transcript = b.lines().stream().anyMatch(l -> l.startsWith("$ "));
        List<Command> out = new ArrayList<>();
        List<String> lines = b.lines();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (transcript && !line.startsWith("$ ")) {
                if (!out.isEmpty() && !line.isBlank()) {
                    out.get(out.size() - 1).expected().add(line);
                }
                continue;
            }
            String l = transcript ? line.substring(2) : line;
            if (l.isBlank() || l.strip().startsWith("#")) {
                continue;
            }
            StringBuilder c = new StringBuilder(l.strip());
            while (c.toString().endsWith("\\") && i + 1 < lines.size()) {
                c.setLength(c.length() - 1);
                c.append(' ').append(lines.get(++i).strip());
            }
            Matcher heredoc = Pattern.compile("<<-?'?(\\w+)'?").matcher(c);
            if (heredoc.find()) {
                String end = heredoc.group(1);
                while (i + 1 < lines.size()) {
                    String next = lines.get(++i);
                    c.append('\n').append(next);
                    if (next.strip().equals(end)) {
                        break;
                    }
                }
            }
            out.add(new Command(c.toString(), new ArrayList<>()));
        }
        return out;
    }

    /** The parts of a command line joined by {@code &&}. */
    private static List<String> parts(String command) {
        return List.of(command.split(" && "));
    }

    /** Whether a command serves until stopped: a master (a runtime that listens) or an agent. */
    static boolean serves(String command) {
        boolean runtime = command.matches("java -jar \\S*granary-standalone(-equinox)?\\.jar .*")
                && command.matches(".*--listen=(?!off\\b)\\S+.*") && !command.contains("--issue-token")
                && !command.contains("|") && !command.contains("<");
        return runtime || command.matches("java -jar \\S*granary-agent\\.jar .*");
    }

    private static void run(Block b) throws Exception {
        Path root = root();
        Path work = Files.createDirectories(It.target().toAbsolutePath().resolve("readme-examples"))
                .resolve(b.file().replace('/', '-') + "-" + b.line());
        Main.deleteTree(work);
        Files.createDirectories(work.resolve("tmp"));
        for (String dir : LINKED) {
            Files.createSymbolicLink(work.resolve(dir), root.resolve(dir));
        }
        int port = freePort();
        List<Service> services = new ArrayList<>();
        try {
            for (Command c : commands(b)) {
                List<String> kept = new ArrayList<>();
                for (String part : parts(c.text())) {
                    if (b.skipped().keySet().stream().noneMatch(part::startsWith)) {
                        kept.add(part);
                    }
                }
                if (kept.isEmpty()) {
                    continue;
                }
                String command = String.join(" && ", kept).replace(LOCAL, "127.0.0.1:" + port);
                String where = b.where() + ": " + command;
                assertFalse(command.matches(".*=[^ ']*\\|[^ ']*.*") && !command.contains("'"),
                        where + ": an unquoted | runs a pipe in bash");
                for (Service s : services) {
                    assertTrue(s.process().isAlive(), where + ": " + s.command() + " ended before it\n" + s.output());
                }
                if (serves(command)) {
                    services.add(Service.start(work, command, services.size()));
                    continue;
                }
                Result r = bash(work, command);
                boolean timedOut = r.exit == 28 && command.startsWith("curl ") && command.contains("--max-time");
                assertTrue(r.exit == 0 || timedOut, where + "\n" + r);
                assertFalse(r.err.contains("Error") || r.err.contains("Exception"), where + "\n" + r);
                if (command.startsWith("curl ")) {
                    assertFalse(r.out.isBlank(), where + ": no answer\n" + r);
                    assertFalse(r.out.contains("/api/v1/problems/")
                            || r.out.matches("(?s).*\"status\"\\s*:\\s*[45]\\d\\d\\b.*\"detail\".*"),
                            where + ": an error answer (problem JSON)\n" + r);
                    assertFalse(r.out.startsWith("HTTP/") && !r.out.matches("(?s)HTTP/\\S+ 2\\d\\d.*"),
                            where + ": an error status\n" + r);
                }
                for (String e : c.expected()) {
                    Pattern line = Pattern.compile(Stream.of(collapse(e).strip().split("\\.\\.\\.", -1))
                            .map(piece -> Pattern.quote(piece.strip())).collect(Collectors.joining(".*")));
                    assertTrue(collapse(r.out).lines().anyMatch(l -> line.matcher(l).find()),
                            where + ": the block says it prints '" + e + "'\n" + r);
                }
            }
            for (Service s : services) {
                assertTrue(s.process().isAlive(), b.where() + ": " + s.command() + " ended before the block's end\n"
                        + s.output());
                assertFalse(s.err().contains("Exception"), b.where() + ": " + s.command() + "\n" + s.output());
            }
        } finally {
            for (int i = services.size() - 1; i >= 0; i--) {
                services.get(i).stop();
            }
            for (String dir : LINKED) {
                Files.deleteIfExists(work.resolve(dir));   // the links only, never what they point to
            }
            Main.deleteTree(work);
        }
    }

    private static String collapse(String s) {
        return s.replaceAll("[ \\t]+", " ");
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The test's java first on the path; java.io.tmpdir and TMPDIR in the scratch directory. */
    private static ProcessBuilder shell(Path work, String command) {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", command).directory(work.toFile());
        Path java = Path.of(ProcessHandle.current().info().command().orElse(
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        pb.environment().put("PATH", java.getParent() + ":" + System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
        pb.environment().put("JAVA_TOOL_OPTIONS", "-Djava.io.tmpdir=" + work.resolve("tmp"));
        pb.environment().put("TMPDIR", work.resolve("tmp").toString());
        return pb;
    }

    private static String withoutNotice(String err) {
        return err.replaceAll("(?m)^Picked up JAVA_TOOL_OPTIONS:.*\\R?", "");
    }

    /** A command that serves until stopped, in the background. */
    private record Service(String command, Process process, Path outFile, Path errFile) {

        static Service start(Path work, String command, int n) throws IOException {
            Path out = work.resolve("service-" + n + ".out");
            Path err = work.resolve("service-" + n + ".err");
            Process p = shell(work, command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            Service s = new Service(command, p, out, err);
            if (command.contains("granary-standalone")) {
                It.await("the master of '" + command + "' listening", () -> s.err().contains("granary: listening on ")
                        || !p.isAlive(), s::output, It.TIMEOUT);
                assertTrue(p.isAlive(), command + " ended\n" + s.output());
            }
            return s;
        }

        String err() {
            try {
                return withoutNotice(Files.readString(errFile));
            } catch (IOException e) {
                return e.toString();
            }
        }

        String output() {
            try {
                return "--- stdout ---\n" + Files.readString(outFile) + "\n--- stderr ---\n" + err();
            } catch (IOException e) {
                return e.toString();
            }
        }

        /** SIGTERM to it and its children, then SIGKILL to whatever is left after a bounded wait. */
        void stop() throws InterruptedException {
            List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
            all.add(process.toHandle());
            all.forEach(ProcessHandle::destroy);
            for (ProcessHandle h : all) {
                try {
                    h.onExit().get(20, TimeUnit.SECONDS);
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                    h.descendants().forEach(ProcessHandle::destroyForcibly);
                    h.destroyForcibly();
                }
            }
            try (OutputStream in = process.getOutputStream()) {
                in.flush();   // standard input, held open while it served
            } catch (IOException e) {
                // it has ended: nothing reads it any more
            }
        }
    }

    /**
     * What the README says happens on the demo cluster, on the runtime with its demo: the quota table of
     * its HTTP block keeps the demo's jobs coming (none refused), the simulator's table refuses them and
     * the status counts the refusals, and the reference job is refused as printed (its GPU) and, without
     * the GPU, waits for a node with its label.
     */
    @Test
    void theReadmesQuotaTablesAndReferenceJobOnTheDemoCluster() throws Exception {
        assumeTrue(It.framework().equals("felix"), "once per build");
        Path root = root();
        Path tmp = Files.createDirectories(It.target().toAbsolutePath().resolve("readme-examples").resolve("demo"));
        try {
            String readme = Files.readString(root.resolve("README.md"));
            String demoTable = "features/standalone/examples/demo-quota.json";
            String simTable = "bundles/granary.sim/examples/quota.json";
            assertTrue(readme.contains("--data @" + demoTable + " 'http://127.0.0.1:7070/api/v1/quota?workerSpans=default:50000'"),
                    "the README pushes the demo's table");
            Matcher json = Pattern.compile("waits with reason `no node matches.*?```json\\n(.*?)```", Pattern.DOTALL).matcher(readme);
            assertTrue(json.find(), "the reference job");
            Path asPrinted = tmp.resolve("reference.json");
            Files.writeString(asPrinted, json.group(1));
            Path withoutGpu = tmp.resolve("reference-cpu.json");
            Files.writeString(withoutGpu, json.group(1).replace(", \"gpu\": 1", ""));

            ChildProcess.Result r = ChildProcess.run(It.runnableJar(), tmp, String.join("\n",
                    "granary:quota-load " + root.resolve(demoTable) + " default:50000",
                    "sleep 5",
                    "granary:status",
                    "granary:submit " + asPrinted,
                    "granary:submit " + withoutGpu,
                    "granary:why wordcount-7",
                    "granary:quota-load " + root.resolve(simTable) + " default:50000",
                    "sleep 5",
                    "granary:status",
                    ""), "--listen=off");

            String out = r.out();
            int second = out.lastIndexOf("time=");
            Map<String, String> funded = It.keyValues(out.substring(0, out.indexOf("submitted wordcount-7")));
            Map<String, String> unfunded = It.keyValues(out.substring(second));
            assertEquals("0", funded.get("refused_submissions"), "the demo's table funds its groups\n" + r);
            assertTrue(Integer.parseInt(funded.get("jobs")) > 0, r::toString);
            assertTrue(Integer.parseInt(unfunded.get("refused_submissions")) > 0,
                    "the simulator's table funds g0-g2 only: the demo's jobs are refused, and counted\n" + r);
            assertTrue(Integer.parseInt(unfunded.getOrDefault("refused_jobs.unknown_group", "0")) > 0,
                    "counted by the quota policy's reason: a group the table does not fund\n" + r);
            assertEquals("1", unfunded.get("refused_jobs.too_large"), "the GPU job, larger than every node\n" + r);
            assertTrue(r.err().contains("slot cpu=100,mem=2048,gpu=1 is larger than every node"), r::toString);
            assertTrue(out.contains("submitted wordcount-7 to root.batch: granted 0 of 1000 slots"), r::toString);
            assertTrue(out.contains("no node matches the node selector {disk=ssd}"), r::toString);
        } finally {
            Main.deleteTree(tmp);
        }
    }

    private record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout ---\n" + out + "\n--- stderr ---\n" + err;
        }
    }

    /** Runs one command in bash with standard input at its end, in the block's scratch directory. */
    private static Result bash(Path work, String command) throws IOException, InterruptedException {
        Path out = Files.createTempFile(work.resolve("tmp"), "stdout", "");
        Path err = Files.createTempFile(work.resolve("tmp"), "stderr", "");
        Process p = shell(work, command)
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            if (!p.waitFor(It.TIMEOUT.toSeconds() * 3, TimeUnit.SECONDS)) {
                return new Result(-1, Files.readString(out), "did not end in time\n" + Files.readString(err));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), withoutNotice(Files.readString(err)));
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
