package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Fail closed at start (docs/operations.md, "Fail closed"): a configuration the runtime refuses — a
 * policy's option, file or enum value, or a demo setting — stops the start with exit code 3 and one
 * clear error naming the PID, the option and the problem, without a stack trace. The runtime never
 * starts scheduling without a part the operator configured.
 */
class BadStartConfigurationIT {

    @TempDir
    Path tmp;

    private static final String TABLE = "{\"default\": {\"g\": {\"GroupId\": 1, \"MinQuota\": 1, \"MaxQuota\": 9}}}";

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            missing quota table   | granary.policy.quota:tableFile=@/missing.json                  |             |                                         | granary.policy.quota  | tableFile   | missing.json
            malformed quota table | granary.policy.quota:tableFile=@/quota.json                    | quota.json  | {"default": {"g": {"GroupId": "one"}}}  | granary.policy.quota  | tableFile   | GroupId
            bad WorkerSpans       | granary.policy.quota:tableFile=@/quota.json,workerSpans=d:lots | quota.json  | TABLE                                   | granary.policy.quota  | workerSpans | lots
            bad queue file        | granary.policy.queues:file=@/queues.json                       | queues.json | {"queues": {"a": {"capacity": "120%"}}} | granary.policy.queues | file        | capacity
            unknown FAIR measure  | granary.policy.fair:measure=COUNT                              |             |                                         | granary.policy.fair   | measure     | COUNT
            bad demo setting      | granary.demo:rooms=-3                                          |             |                                         | granary.demo          | rooms       | -3
            """)
    void refusedAtStartWithOneClearError(String name, String config, String file, String content, String pid, String option,
                                         String detail) throws IOException, InterruptedException {
        String setting = config.replace("@", tmp.toString());
        if (file != null) {
            Files.writeString(tmp.resolve(file), content.equals("TABLE") ? TABLE : content);
        }
        ChildProcess.Result r = ChildProcess.run(It.runnableJar(), tmp, "granary:status\n", "--config=" + setting);

        assertEquals(Launcher.EXIT_STARTUP, r.exit(), r::toString);
        assertFalse(r.out().contains("nodes="), "no command ran: " + r);
        String errors = String.join("\n", r.err().lines().filter(l -> l.startsWith("Error: ")).toList());
        for (String part : new String[] {pid, option, detail}) {
            assertTrue(errors.contains(part), "the error names " + part + ": " + r);
        }
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), "no stack trace: " + r);
        assertTrue(r.err().lines().allMatch(l -> l.length() < 600), "short lines: " + r);
    }
}
