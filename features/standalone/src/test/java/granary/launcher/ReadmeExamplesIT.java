package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * The README's shell examples work when pasted into bash, from the repository's root, on the built
 * jars. Every command line of the README's code blocks is either run here (exit 0, no error on
 * standard error) or on the short list below with the reason it is not; a new example is run
 * unless someone says why not. Run in the Felix pass only: the commands do not depend on it.
 */
class ReadmeExamplesIT {

    /** Command lines not run here, and why. */
    private static final Map<String, String> NOT_RUN = Map.ofEntries(
            Map.entry("mvn ", "the build itself (this test runs inside it)"),
            Map.entry("cd features/standalone/target/stock-felix", "a stock Felix console: StockFelixIT runs that distribution"),
            Map.entry("java -jar features/standalone/target/granary-standalone-equinox.jar --demo=false < commands.txt",
                    "reads the reader's own commands.txt; the same jar runs piped in PipedConsoleIT"),
            Map.entry("java -jar features/standalone/target/granary-standalone.jar --demo=false --listen=127.0.0.1:7070",
                    "a master that runs until stopped: ClusterIT starts the same master on a free port"),
            Map.entry("java -jar features/standalone/target/granary-standalone.jar --listen=127.0.0.1:7070",
                    "a runtime that runs until stopped, scraped from another terminal: MetricsIT starts it on a free port and scrapes it"),
            Map.entry("java -jar features/standalone/target/granary-standalone.jar --secret=granary.secret --issue-token=",
                    "writes token files into the working directory: HttpListenIT and ClusterIT issue tokens"),
            Map.entry("java -jar features/agent/", "needs the master above: ClusterIT runs agents against a real master"),
            Map.entry("java -jar features/jobmaster/", "needs the master and agents above: ClusterIT runs the job master"),
            Map.entry("java -jar granary-standalone.jar --demo=false --listen=10.0.0.",
                    "masters of other hosts on a ZooKeeper ensemble: MasterFailoverIT runs two HA masters on loopback"),
            Map.entry("java -jar granary-agent.jar --master=http://10.0.0.1:7070,", "needs the HA masters above: MasterFailoverIT runs one"),
            Map.entry("java -jar features/conformance/", "the conformance kit, built after this module: ConformanceJarIT runs the jar"),
            Map.entry("java -jar desktop-planner/", "a window that stays open, built after this module: the planner's PlannerIT "
                    + "opens it (headless) with the same kind of arguments"));

    private static final Pattern BLOCK = Pattern.compile("```(\\w*)\\n(.*?)```", Pattern.DOTALL);
    private static final Pattern COMMAND = Pattern.compile("^(java|printf|mvn|cd|echo|cat|benchmarks/)\\b.*");

    @Test
    void everyShellExampleRunsAsPrinted() throws Exception {
        assumeTrue(It.framework().equals("felix"), "once per build");
        Path root = It.target().toAbsolutePath().getParent().getParent().getParent();
        List<String> commands = commands(Files.readString(root.resolve("README.md")));
        assertTrue(commands.size() >= 4, "README commands: " + commands);
        List<String> ran = new ArrayList<>();
        for (String c : commands) {
            if (NOT_RUN.keySet().stream().anyMatch(c::startsWith)) {
                continue;
            }
            assertFalse(c.matches(".*=[^ ']*\\|[^ ']*.*") && !c.contains("'"), "an unquoted | runs a pipe in bash: " + c);
            Result r = bash(root, c);
            assertEquals(0, r.exit, c + "\n" + r);
            assertFalse(r.err.contains("Error") || r.err.contains("Exception"), c + "\n" + r);
            ran.add(c);
        }
        assertTrue(ran.size() >= 2, "examples run: " + ran);
    }

    /**
     * What the README says happens on the demo cluster, on the runtime with its demo: the quota table of
     * its HTTP block keeps the demo's jobs coming (none refused), the simulator's table refuses them and
     * the status counts the refusals, and the reference job is refused as printed (its GPU) and, without
     * the GPU, waits for a node with its label.
     */
    @Test
    void theReadmesQuotaTablesAndReferenceJobOnTheDemoCluster(@org.junit.jupiter.api.io.TempDir Path tmp) throws Exception {
        assumeTrue(It.framework().equals("felix"), "once per build");
        Path root = It.target().toAbsolutePath().getParent().getParent().getParent();
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
    }

    /** The command lines of the shell code blocks (continued lines joined). */
    static List<String> commands(String readme) {
        List<String> out = new ArrayList<>();
        Matcher m = BLOCK.matcher(readme);
        while (m.find()) {
            if (m.group(1).equals("json") || m.group(1).equals("java")) {
                continue;
            }
            for (String line : m.group(2).replace("\\\n", " ").split("\n")) {
                String l = line.strip().replaceAll(" +", " ");
                if (COMMAND.matcher(l).matches()) {
                    out.add(l);
                }
            }
        }
        return out;
    }

    private record Result(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout ---\n" + out + "\n--- stderr ---\n" + err;
        }
    }

    /**
     * Runs one command in bash with standard input at its end, in a scratch directory that looks
     * like the repository's root (links to its folders), so that files an example writes
     * (the simulator's sim-results/) land there and not in the repository.
     */
    private static Result bash(Path root, String command) throws IOException, InterruptedException {
        Path work = Files.createTempDirectory("readme-");
        Path out = work.resolve("stdout");
        Path err = work.resolve("stderr");
        try {
            for (String dir : List.of("features", "bundles", "benchmarks", "docs")) {
                Files.createSymbolicLink(work.resolve(dir), root.resolve(dir));
            }
            Process p = new ProcessBuilder("bash", "-c", command).directory(work.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(It.TIMEOUT.toSeconds() * 3, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                return new Result(-1, Files.readString(out), "did not end in time\n" + Files.readString(err));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err));
        } finally {
            for (String dir : List.of("features", "bundles", "benchmarks", "docs")) {
                Files.deleteIfExists(work.resolve(dir));   // the links only, never what they point to
            }
            Main.deleteTree(work);
        }
    }
}
