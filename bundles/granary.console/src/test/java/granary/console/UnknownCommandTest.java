package granary.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;

import org.apache.felix.gogo.runtime.CommandProcessorImpl;
import org.apache.felix.gogo.runtime.threadio.ThreadIOImpl;
import org.apache.felix.service.command.CommandSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An unknown command in a real Gogo command processor answers in words: the exception the shell
 * prints, or inside a pipe the text on the error stream, names the command and where to look, and no
 * Java class.
 */
class UnknownCommandTest {

    private ThreadIOImpl threadIo;
    private CommandProcessorImpl processor;
    private CommandSession session;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    /** A command that reads its input: the end of a pipe. */
    public static final class Lines {
        public String count() throws IOException {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            return in.lines().count() + " lines";
        }

        public String hello() {
            return "hello";
        }

        public String refuse() {
            throw new Refusal("no job x: it is not in the engine");
        }
    }

    @BeforeEach
    void start() {
        threadIo = new ThreadIOImpl();
        threadIo.start();
        processor = new CommandProcessorImpl(threadIo);
        processor.addListener(new UnknownCommand());
        processor.addCommand("test", new Lines(), "count");
        processor.addCommand("test", new Lines(), "hello");
        processor.addCommand("test", new Lines(), "refuse");
        session = processor.createSession(new ByteArrayInputStream(new byte[0]),
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err, true));
    }

    @AfterEach
    void stop() {
        session.close();
        threadIo.stop();
    }

    @Test
    void anUnknownCommandIsRefusedInWords() {
        Exception e = assertThrows(Exception.class, () -> session.execute("foo bar"));

        assertEquals("Command not found: foo (granary:help lists Granary's commands)", e.toString());
        assertTrue(e instanceof Refusal, "the shell prints toString(): " + e.getClass());
    }

    @Test
    void anUnknownCommandWithAScopeIsNamedWithIt() {
        Exception e = assertThrows(Exception.class, () -> session.execute("granary:nosuch"));

        assertEquals("Command not found: granary:nosuch (granary:help lists Granary's commands)", e.toString());
    }

    @Test
    void insideAPipeTheRefusalIsTextWithoutAClassName() throws Exception {
        Object result = session.execute("foo | count");

        assertEquals("0 lines", result, "the rest of the pipe runs");
        String text = err.toString(StandardCharsets.UTF_8);
        assertEquals("Command not found: foo (granary:help lists Granary's commands)", text.strip(), text);
    }

    /** Gogo prints a stage that failed inside a pipe with the exception's simple name: a word, here. */
    @Test
    void aCommandsRefusalInsideAPipeReadsAsWords() throws Exception {
        session.execute("refuse | count");

        assertEquals("gogo: Refusal: no job x: it is not in the engine", err.toString(StandardCharsets.UTF_8).strip());
    }

    @Test
    void atTheEndOfAPipeTheShellGetsTheRefusal() {
        Exception e = assertThrows(Exception.class, () -> session.execute("hello | foo"));

        assertEquals("Command not found: foo (granary:help lists Granary's commands)", e.toString());
    }

    @Test
    void aKnownCommandRunsAndASessionsOwnDefaultIsKept() throws Exception {
        assertEquals("hello", session.execute("hello"));
        session.put(UnknownCommand.DEFAULT, (org.apache.felix.service.command.Function) (s, args) ->
                "mine: " + args.stream().map(String::valueOf).collect(Collectors.joining(" ")));

        assertEquals("mine: foo bar", session.execute("foo bar"));
        assertFalse(err.toString(StandardCharsets.UTF_8).contains("Exception"), err::toString);
    }
}
