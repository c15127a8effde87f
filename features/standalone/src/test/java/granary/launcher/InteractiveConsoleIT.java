package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The interactive console on a real pseudo-terminal (util-linux {@code script}): Gogo's JLine shell
 * gives Tab completion of commands and of policy names, history (Ctrl-P, the up arrow's binding), and Ctrl-C cancels the line being typed
 * without stopping the runtime; Ctrl-D ends it. Skipped where {@code script} is missing.
 */
class InteractiveConsoleIT {

    private static final Path SCRIPT = Path.of("/usr/bin/script");
    /**
     * The runtime's temporary files (its work directory, JLine's native library) go here: a runtime
     * killed after a failed check cannot delete them, and they must not stay in /tmp.
     */
    @org.junit.jupiter.api.io.TempDir
    Path tmp;
    private Process process;
    private final ByteArrayOutputStream screen = new ByteArrayOutputStream();

    @AfterEach
    void kill() {
        if (process != null) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }

    @Test
    void completionHistoryAndCtrlC() throws Exception {
        assumeTrue(Files.isExecutable(SCRIPT), "no " + SCRIPT);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // a pseudo-terminal of 0 x 0 would leave JLine no room for the prompt: give it a size
        String command = "stty cols 120 rows 40; exec " + java + " -Djava.io.tmpdir=" + tmp + " -jar " + It.runnableJar().toAbsolutePath()
                + " --demo=false --interactive --listen=off";
        process = new ProcessBuilder(SCRIPT.toString(), "-qfec", command, "/dev/null").redirectErrorStream(true).start();
        Thread reader = new Thread(() -> copy(process.getInputStream()), "pty-reader");
        reader.setDaemon(true);
        reader.start();
        OutputStream keys = process.getOutputStream();

        await("the prompt", s -> s.contains("g! "));
        type(keys, "granary:sta\t");                       // Tab completes the command name
        type(keys, "\r");
        await("the status", s -> count(s, "nodes=0") == 1);
        type(keys, "granary:nonsense");
        type(keys, "\u0003");                              // Ctrl-C drops the line, the runtime stays
        Thread.sleep(700);
        type(keys, "\u0010\r");                           // Ctrl-P (history up, as the up arrow): the last command again
        await("the status again", s -> count(s, "nodes=0") == 2);
        assertTrue(process.isAlive(), "Ctrl-C did not stop the runtime");
        assertTrue(!text().contains("Command not found: granary:nonsense"), "the cancelled line did not run:\n" + text());
        type(keys, "granary:policy fa\t");                 // Tab completes a policy's name
        type(keys, "\r");
        await("the swap to fair", s -> s.contains("unit-order: sjf -> fair"));
        type(keys, "\u0004");                              // Ctrl-D on an empty line: the runtime stops
        assertTrue(process.waitFor(It.TIMEOUT.toSeconds(), TimeUnit.SECONDS), "the runtime did not stop:\n" + text());
        assertEquals(0, process.exitValue(), text());
    }

    /**
     * On a terminal: a pipe into grep, a refusal and an unknown command (alone and inside a pipe)
     * printed without a Java class name, {@code help} with
     * Granary's commands first, and {@code exit} (not System.exit: no "Cannot coerce", no stack trace)
     * stops the runtime with code 0.
     */
    @Test
    void pipesHelpRefusalsAndExit() throws Exception {
        assumeTrue(Files.isExecutable(SCRIPT), "no " + SCRIPT);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String command = "stty cols 200 rows 60; exec " + java + " -Djava.io.tmpdir=" + tmp + " -jar " + It.runnableJar().toAbsolutePath()
                + " --demo=false --interactive --listen=off";
        process = new ProcessBuilder(SCRIPT.toString(), "-qfec", command, "/dev/null").redirectErrorStream(true).start();
        Thread reader = new Thread(() -> copy(process.getInputStream()), "pty-reader");
        reader.setDaemon(true);
        reader.start();
        OutputStream keys = process.getOutputStream();

        await("the prompt", s -> s.contains("g! "));
        type(keys, "lb -s | grep granary.eng\r");
        // on a terminal grep marks the match in colour: read the screen without its escapes
        await("lb piped into grep", s -> s.replaceAll("\u001b\\[[0-9;?]*[A-Za-z]", "")
                .matches("(?s).*\\|Active\\s*\\|\\s*\\d+\\|granary\\.engine .*"));
        type(keys, "cancel nosuch\r");
        await("the refusal", s -> s.contains("no running job"));
        type(keys, "nosuch\r");
        await("the unknown command", s -> s.contains("Command not found: nosuch"));
        type(keys, "nopipe | grep x\r");
        await("the unknown command in a pipe", s -> s.contains("Command not found: nopipe"));
        type(keys, "help\r");
        await("the help", s -> s.contains("felix:help lists them"));
        type(keys, "exit\r");
        assertTrue(process.waitFor(It.TIMEOUT.toSeconds(), TimeUnit.SECONDS), "exit did not stop the runtime:\n" + text());
        assertEquals(0, process.exitValue(), text());
        String screen = text();
        String refusal = screen.lines().filter(l -> l.contains("no running job")).findFirst().orElseThrow();
        assertTrue(!refusal.contains("Exception") && !refusal.contains("granary.api"), "no Java class name: " + refusal);
        for (String name : List.of("nosuch", "nopipe")) {
            // the line without the terminal's escapes (colours, keypad mode): nothing before the words
            String line = screen.lines().filter(l -> l.contains("Command not found: " + name)).findFirst().orElseThrow()
                    .replaceAll("\u001b(\\[[0-9;?]*[A-Za-z]|[=>])", "");
            int at = line.indexOf("Command not found: ");
            assertTrue(line.substring(0, at).chars().noneMatch(Character::isLetter), "no class name before the words: " + line);
            assertEquals("Command not found: " + name + " (granary:help lists Granary's commands)", line.substring(at).strip());
        }
        assertTrue(screen.indexOf("granary:status - ") < screen.indexOf("felix:help lists them"), screen);
        assertTrue(!screen.contains("Cannot coerce") && !screen.contains("InterruptedException"), screen);
    }

    private static void type(OutputStream keys, String s) throws IOException, InterruptedException {
        keys.write(s.getBytes(StandardCharsets.UTF_8));
        keys.flush();
        Thread.sleep(300);   // a person's pace: the line reader reads each key sequence on its own
    }

    private void await(String what, Predicate<String> seen) throws InterruptedException {
        long deadline = System.nanoTime() + It.TIMEOUT.toNanos();
        while (!seen.test(text())) {
            if (System.nanoTime() > deadline || !process.isAlive()) {
                throw new AssertionError("no " + what + " on the terminal:\n" + text());
            }
            Thread.sleep(50);
        }
    }

    private String text() {
        synchronized (screen) {
            return screen.toString(StandardCharsets.UTF_8);
        }
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    private void copy(InputStream in) {
        byte[] buf = new byte[4096];
        try {
            for (int n; (n = in.read(buf)) > 0; ) {
                synchronized (screen) {
                    screen.write(buf, 0, n);
                }
            }
        } catch (IOException ended) {
            // the process ended
        }
    }
}
