package granary.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.codec.json.JsonObject;
import granary.codec.json.JsonReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MainTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void runsTheCasesAndSchedulesPrintsATableAndWritesTheReport() throws Exception {
        Path report = dir.resolve("report.json");
        assertEquals(0, run("--schedules", "3", "--seed=5", "--report", report.toString()), err::toString);
        String table = out.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("case  | title"), table);
        assertTrue(table.contains("17b   | M failover + AM timeout + A timeout"), table);
        assertTrue(java.util.regex.Pattern.compile("(\\d+) of \\1 cases passed; 3 of 3 random schedules passed \\(seeds 5\\.\\.7\\)")
                .matcher(table).find(), table);
        JsonObject json = (JsonObject) JsonReader.read(Files.readString(report), "report");
        assertEquals("0", ((granary.codec.json.JsonNumber) json.get("violations")).text());
    }

    @Test
    void badOptionsSayWhatIsWrong() {
        assertEquals(2, run("--schedules", "many"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--schedules: expected a whole number, got 'many'"), err::toString);
        assertEquals(2, run("--colour", "red"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown option --colour"));
        assertEquals(2, run("--schedules=-1"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--schedules: must be from 0 to 1000000, got -1"));
    }

    @Test
    void processesNeedTheirJarsAndSayWhichIsMissing() {
        assertEquals(2, run("--schedules", "0", "--processes", "--jars", dir.toString()));
        assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing runs before the jars are found");
        String e = err.toString(StandardCharsets.UTF_8);
        assertTrue(e.contains("--processes needs " + dir.resolve("standalone/target/granary-standalone.jar")), e);
        assertTrue(e.contains("--jars DIR"), e);
        assertEquals(2, run("--jars", dir.toString()));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--jars: only with --processes"), err::toString);
        assertEquals(2, run("--processes=yes"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--processes takes no value, got 'yes'"), err::toString);
    }

    /** The wiring of --processes, quickly: jars that are not runnable make every real-process row fail, and the kit exit 1. */
    @Test
    void processRowsJoinTheTableAndTheReportAndAFailingOneFailsTheRun() throws Exception {
        for (String jar : new String[] {"standalone/target/granary-standalone.jar", "agent/target/granary-agent.jar",
                "jobmaster/target/granary-jobmaster.jar"}) {
            Files.createDirectories(dir.resolve(jar).getParent());
            Files.writeString(dir.resolve(jar), "not a jar");
        }
        Files.createDirectories(dir.resolve("work/P1"));
        Files.writeString(dir.resolve("work/P1/svc-0.pid"), "1\n");   // left by an earlier run: not this run's service
        Path report = dir.resolve("report.json");
        assertEquals(1, run("--schedules", "0", "--processes", "--jars", dir.toString(), "--work-dir", dir.resolve("work").toString(),
                "--report", report.toString()), err::toString);
        String table = out.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("P1    | M kill -9 (real processes)"), table);
        assertTrue(table.contains("the master exited with"), table);
        // every real-process row failed, every named case passed
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+) of (\\d+) cases passed").matcher(table);
        assertTrue(m.find() && Integer.parseInt(m.group(2)) - Integer.parseInt(m.group(1))
                == granary.conformance.kit.processes.ProcessScenarios.IDS.size(), table);
        String json = Files.readString(report);
        assertTrue(json.matches("(?s).*\"id\": *\"P3\".*") && json.matches("(?s).*\"result\": *\"fail\".*"), json);
        assertTrue(Files.isRegularFile(dir.resolve("work/P1/master.err")), "the master's output is kept in the work directory");
        assertTrue(!Files.exists(dir.resolve("work/P1/svc-0.pid")), "a scenario starts from an empty directory");
    }

    @Test
    void helpPrintsTheUsage() {
        assertEquals(0, run("--help"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("Usage: java -jar granary-conformance.jar"));
    }
}
