package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end: {@code java -jar <runnable jar>} with commands piped to standard input, on the jar of
 * this run's framework. Checks the console contract (output on stdout, {@code Error: ...} on stderr,
 * exit codes) and that the runtime leaves no storage behind.
 */
class PipedConsoleIT {

    @TempDir
    Path tmp;

    private ChildProcess.Result run(String stdin, String... args) throws IOException, InterruptedException {
        return ChildProcess.run(It.runnableJar(), tmp, stdin, args);
    }

    /** The runtime's storage lives in java.io.tmpdir and is deleted on exit; nothing lands in the working directory. */
    @AfterEach
    void leavesNothingBehind() throws IOException {
        try (Stream<Path> left = Files.list(tmp)) {
            assertEquals(List.of(), left.filter(p -> !p.getFileName().toString().endsWith(".json")).toList());
        }
    }

    @Test
    void policiesArePrintedAndTheProcessExits0() throws Exception {
        ChildProcess.Result r = run("granary:policies\n");

        assertEquals(0, r.exit(), r::toString);
        assertTrue(matches(r.out(), "sjf\\s+unit-order\\s+granary\\.policy\\.sjf\\s+\\S+\\s+active"), "the default unit order\n" + r);
        assertTrue(matches(r.out(), "fifo\\s+unit-order\\s+granary\\.policy\\.fifo\\s+\\S+"), r::toString);
        assertTrue(matches(r.out(), "fair\\s+unit-order\\s+granary\\.policy\\.fair\\s+\\S+"), r::toString);
        assertFalse(matches(r.out(), "(fifo|fair)\\s+.*active"), "installed, not selected\n" + r);
        assertEquals("", r.err(), r::toString);
    }

    @Test
    void statusPolicySwapErrorsAndHelp() throws Exception {
        ChildProcess.Result r = run(String.join("\n",
                "# a comment, then a blank line",
                "",
                "granary:status",
                "granary:policy fair",
                "granary:policy nope",
                "   granary:status   ",
                "help granary:policy",
                ""), "--demo=false");

        assertEquals(0, r.exit(), "a failed command is not fatal without --strict\n" + r);
        int swap = r.out().indexOf("unit-order: sjf -> fair");
        assertTrue(swap > 0, r::toString);
        Map<String, String> before = It.keyValues(r.out().substring(0, swap));
        Map<String, String> after = It.keyValues(r.out().substring(swap));
        for (String key : List.of("nodes", "capacity", "free", "waiting_units", "waiting_slots", "granted_slots")) {
            assertTrue(before.containsKey(key), key + " missing in\n" + r);
        }
        assertEquals("0", before.get("nodes"), "--demo=false: no demo nodes\n" + r);
        assertEquals("0", before.get("waiting_units"));
        assertEquals("sjf", before.get("policy.unit-order"), r::toString);
        assertEquals("fair", after.get("policy.unit-order"), r::toString);
        assertTrue(r.out().contains("policy name"), "help granary:policy describes its parameter\n" + r);

        List<String> errors = r.err().lines().toList();
        assertEquals(1, errors.size(), r::toString);
        assertTrue(errors.get(0).startsWith("Error: "), r::toString);
        assertTrue(errors.get(0).contains("'nope'") && errors.get(0).contains("fair") && errors.get(0).contains("fifo"),
                "the error names the unknown policy and the known ones\n" + r);
    }

    @Test
    void strictTurnsAFailedCommandIntoExitCode1() throws Exception {
        ChildProcess.Result r = run("bogus\ngranary:status\n", "--strict", "--demo=false");

        assertEquals(1, r.exit(), r::toString);
        assertEquals("Error: Command not found: bogus (granary:help lists Granary's commands)", r.err().strip(), r::toString);
        assertEquals("0", It.keyValues(r.out()).get("nodes"), "the next command still ran\n" + r);
    }

    @Test
    void jobsAreSubmittedListedAndCancelledOnTheDemoCluster() throws Exception {
        Path job = tmp.resolve("it-job.json");
        Files.writeString(job, """
                {"id": "it-job", "group": "root.it",
                 "units": [{"name": "work", "slot": {"cpu": 100, "mem": 1024}, "desired": 3}]}
                """);
        ChildProcess.Result r = run(String.join("\n",
                "granary:submit " + job,
                "granary:jobs",
                "granary:cancel it-job",
                "granary:nodes",
                "granary:status",
                ""), "--strict");

        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.out().contains("submitted it-job to root.it: granted 3 of 3 slots"), r::toString);
        assertTrue(matches(r.out(), "it-job group=root\\.it .*granted=3/3"), r::toString);
        assertTrue(r.out().contains("cancelled it-job"), r::toString);
        assertTrue(matches(r.out(), "r1-n001\\s+room=r1"), "the demo cluster's nodes\n" + r);
        assertEquals("200", It.keyValues(r.out()).get("nodes"), "4 rooms x 50 nodes by default\n" + r);
    }

    @Test
    void emptyInputStopsTheRuntimeAndExits0() throws Exception {
        ChildProcess.Result r = run("", "--demo=false");

        assertEquals(0, r.exit(), r::toString);
        assertEquals("", r.out() + r.err(), r::toString);
    }

    @Test
    void aBadOptionIsAUsageError() throws Exception {
        ChildProcess.Result r = run("", "--bogus");

        assertEquals(2, r.exit(), r::toString);
        assertTrue(r.err().startsWith("Error: unknown argument '--bogus'"), r::toString);
        assertTrue(r.err().contains("Usage: java -jar granary-standalone.jar"), r::toString);
    }

    /**
     * The shell operators know, piped: Gogo's standard commands and pipes resolve (JLine's bundle is
     * started, with no second shell), every bundle is Active, {@code help} puts Granary's commands first,
     * a refusal and an unknown command inside a pipe are in words, and {@code exit} stops the runtime: the lines after it do not run.
     */
    @Test
    void standardCommandsPipesHelpAndExit() throws Exception {
        ChildProcess.Result r = run(String.join("\n",
                "lb | grep -i granary",
                "lb -s | grep granary",
                "echo piped | grep pip",
                "lb -s",
                "help",
                "granary:cancel nosuch",
                "bogus | grep x",
                "names",
                "exit",
                "granary:status",
                ""), "--demo=false");

        assertEquals(0, r.exit(), r::toString);
        assertTrue(matches(r.out(), "^\\s*\\d+\\|Active\\s*\\|\\s*\\d+\\|Granary engine "), "lb | grep -i granary\n" + r);
        assertTrue(matches(r.out(), "^\\s*\\d+\\|Active\\s*\\|\\s*\\d+\\|granary\\.engine "), "lb -s | grep granary\n" + r);
        assertTrue(matches(r.out(), "^piped$"), "echo | grep\n" + r);
        assertFalse(r.out().contains("\u001b["), "no colour escapes in piped output\n" + r);
        Map<String, String> states = StockFelixIT.parseLb(r.out());
        assertTrue(states.containsKey("org.apache.felix.gogo.jline") && states.containsKey("granary.console"), states::toString);
        assertEquals(Map.of(), filterNot(states, "Active"), "every bundle of the runtime is Active (none is a fragment)");

        int help = r.out().indexOf("Granary's commands");
        assertTrue(help >= 0, r::toString);
        String helpText = r.out().substring(help);
        assertTrue(helpText.indexOf("granary:status - ") < helpText.indexOf("felix:help lists them"),
                "Granary's commands come first, then where the others are\n" + r);
        assertTrue(helpText.indexOf("policy quota:") > 0 && helpText.indexOf("granary:quota-load <file>") > 0, r::toString);
        assertTrue(matches(r.out(), "^policies: .*fifo"), "names lists every kind\n" + r);

        assertTrue(r.out().contains("stopping the runtime"), r::toString);
        assertFalse(r.out().contains("policy.unit-order="), "the line after exit did not run\n" + r);
        List<String> errors = r.err().lines().toList();
        assertEquals(2, errors.size(), r::toString);
        assertTrue(errors.get(0).startsWith("Error: job nosuch: "), r::toString);
        // an unknown command inside a pipe: Gogo's own refusal would be "gogo: CommandNotFoundException: ..."
        assertEquals("Command not found: bogus (granary:help lists Granary's commands)", errors.get(1), r::toString);
        for (String error : errors) {
            assertFalse(error.contains("Exception") || error.contains("granary.api") || error.contains("gogo"), r::toString);
        }
    }

    private static Map<String, String> filterNot(Map<String, String> states, String state) {
        Map<String, String> other = new java.util.TreeMap<>(states);
        other.values().removeIf(state::equals);
        return other;
    }

    private static boolean matches(String text, String lineRegex) {
        Pattern p = Pattern.compile(lineRegex);
        return text.lines().anyMatch(l -> p.matcher(l).find());
    }

    /** Issue 3's commands, piped: load a queue tree and a quota table, submit, move, read quota, queues and billing. */
    @Test
    void multiTenancyCommands() throws Exception {
        Path tree = tmp.resolve("queues.json");
        Files.writeString(tree, "{\"fallback\": \"root.default\", \"queues\": {\"a\": {\"capacity\": \"50%\", "
                + "\"queues\": {\"p0\": {}}}, \"b\": {\"capacity\": \"40%\", \"queues\": {\"p0\": {}}}, "
                + "\"default\": {\"capacity\": \"10%\"}}}");
        Path table = tmp.resolve("quota.json");
        Files.writeString(table, "{\"default\": {\"root.a.p0\": {\"GroupId\": 1, \"MaxQuota\": 100, \"MinQuota\": 10}, "
                + "\"root.b.p0\": {\"GroupId\": 2, \"MaxQuota\": 100, \"MinQuota\": 10}, "
                + "\"root.default\": {\"GroupId\": 3, \"MaxQuota\": 50, \"MinQuota\": 0}}}");
        Path bad = tmp.resolve("bad-quota.json");
        Files.writeString(bad, "{\"default\": {\"g\": {\"GroupId\": 1, \"MaxQuota\": 5, \"MinQuota\": 9}}, \"0-9\": {}, \"5-12\": {}}");
        Path job = tmp.resolve("job.json");
        Files.writeString(job, "{\"id\": \"j1\", \"group\": \"root.a.p0\", \"units\": [{\"name\": \"u\", "
                + "\"slot\": \"cpu=100,mem=100\", \"desired\": 4}]}");
        ChildProcess.Result r = run(String.join("\n",
                "granary:queues-load " + tree,
                "granary:quota-load " + table + " default:200",
                "granary:quota-load " + bad,
                "granary:quota",
                "granary:submit " + job,
                "granary:move j1 root.b.p0",
                "granary:queues",
                "granary:billing",
                ""));
        assertEquals(0, r.exit(), r::toString);
        assertTrue(r.out().contains("quota table: 1 slices, 3 groups, counting workers, WorkerSpans default:200"), r::toString);
        assertTrue(matches(r.out(), "slice=default workers=200 preemption=on emergent=- claimed_nodes=0 lookahead_until=-"), r::toString);
        assertTrue(matches(r.out(), "root\\.a\\.p0\\s+id=1\\s+min=10\\s+max=100\\s+used=0\\s+NORMAL"), r::toString);
        assertTrue(r.out().contains("submitted j1 to root.a.p0: granted 4 of 4 slots"), r::toString);
        assertTrue(r.out().contains("moved j1 to root.b.p0"), r::toString);
        assertTrue(matches(r.out(), "\\s+root\\.b\\.p0\\s+guaranteed=\\S+\\s+max=\\S+\\s+used=cpu=400,mem=400.*jobs=1.*"), r::toString);
        // the bad table: every problem, on stderr, and the good table stays in force
        assertTrue(r.err().contains("MinQuota 9 > MaxQuota 5"), r::toString);
        assertTrue(r.err().contains("overlap at hours 5-9"), r::toString);
        assertFalse(r.out().contains("max=5 "), r::toString);
    }

    /** A configuration PID that no part of the runtime reads is warned about, with the PID it was likely meant to be. */
    @Test
    void aMisspeltConfigurationPidIsWarnedAbout() throws Exception {
        ChildProcess.Result r = run("granary:status\n", "--demo=false", "--config=granary.polcy.quota:preemption=false",
                "--config=granary.engine:policies=fifo");
        assertEquals(0, r.exit(), r::toString);
        List<String> warnings = r.err().lines().filter(l -> l.startsWith("Warning: --config")).toList();
        assertEquals(1, warnings.size(), "only the misspelt PID\n" + r);
        assertTrue(warnings.get(0).contains("'granary.polcy.quota'; did you mean 'granary.policy.quota'?"), r::toString);
        assertTrue(warnings.get(0).contains("granary.engine") && warnings.get(0).contains("granary.master"),
                "the known PIDs are listed\n" + r);
    }

    /** Config Admin settings on the command line: the quota policy starts with its table file. */
    @Test
    void configOptionConfiguresPolicies() throws Exception {
        Path table = tmp.resolve("quota-start.json");
        Files.writeString(table, "{\"default\": {\"root.x\": {\"GroupId\": 7, \"MaxQuota\": 40, \"MinQuota\": 4}}}");
        ChildProcess.Result r = run("granary:quota\n", "--demo=false",
                "--config=granary.policy.quota:tableFile=" + table + ",workerSpans=default:40,preemption=false");
        assertEquals(0, r.exit(), r::toString);
        assertTrue(matches(r.out(), "slice=default workers=40 preemption=off emergent=- claimed_nodes=0 lookahead_until=-"), r::toString);
        assertTrue(matches(r.out(), "root\\.x\\s+id=7\\s+min=4\\s+max=40"), r::toString);
    }
}
