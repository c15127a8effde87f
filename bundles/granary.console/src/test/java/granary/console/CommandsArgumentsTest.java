package granary.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.util.List;
import java.util.stream.Stream;

import granary.api.event.NodeAdded;
import granary.api.event.PolicyInstalled;
import granary.api.model.Clock;
import granary.api.model.NodeSpec;
import granary.api.model.Resources;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.engine.EventLoop;
import granary.policy.fifo.FifoPolicy;
import granary.policy.queues.QueuesPolicy;
import granary.policy.quota.QuotaOptions;
import granary.policy.quota.QuotaPolicy;
import granary.policy.quota.QuotaProvider;

import org.apache.felix.gogo.runtime.CommandProcessorImpl;
import org.apache.felix.gogo.runtime.threadio.ThreadIOImpl;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Descriptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Malformed console arguments, as an operator types them into Gogo: every core command with too few
 * or too many arguments answers its own usage line, never Gogo's "Cannot coerce" text, and an echoed
 * argument is escaped and cut. The commands run in a real Gogo command processor over a real engine.
 */
class CommandsArgumentsTest {

    private EventLoop loop;
    private ThreadIOImpl threadIo;
    private CommandProcessorImpl processor;
    private CommandSession session;

    @BeforeEach
    void start() {
        loop = new EventLoop(new Engine(Clock.system(), new EngineOptions(List.of("fifo", "queues", "quota"), List.of("fifo"), true)),
                1000, "test").start();
        Commands.await(loop.submit(new PolicyInstalled(new FifoPolicy(), "granary.policy.fifo 0.1.0")));
        Commands.await(loop.submit(new PolicyInstalled(new QueuesPolicy(), "granary.policy.queues 0.1.0")));
        Commands.await(loop.submit(new PolicyInstalled(new QuotaPolicy(QuotaOptions.DEFAULTS, null), "granary.policy.quota 0.1.0")));
        Commands.await(loop.submit(new NodeAdded(new NodeSpec("n0", "r0", Resources.of(400, 8192)))));
        threadIo = new ThreadIOImpl();
        threadIo.start();
        processor = new CommandProcessorImpl(threadIo);
        Commands commands = new Commands(loop);
        for (String name : Commands.CORE_NAMES) {
            processor.addCommand("granary", commands, name);
        }
        for (PolicyFunction f : PolicyConsole.functions(QuotaProvider.DECLARATION, loop)) {
            for (String name : f.names()) {
                processor.addCommand("granary", f, name);
            }
        }
        session = processor.createSession(new ByteArrayInputStream(new byte[0]),
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(new ByteArrayOutputStream()));
    }

    @AfterEach
    void stop() {
        session.close();
        threadIo.stop();
        loop.close();
    }

    private String error(String line) {
        Exception e = assertThrows(Exception.class, () -> session.execute(line), line);
        assertTrue(e instanceof IllegalArgumentException, line + ": " + e);
        return e.getMessage();
    }

    static Stream<Arguments> wrongCalls() {
        return Stream.of(
                Arguments.of("granary:policies x", "granary:policies takes 0 arguments, got 1 (extra: \"x\"); usage: "
                        + "granary:policies - list installed policies: name, extension points, bundle, version, and 'active' on those in effect"),
                Arguments.of("granary:policy", "granary:policy takes 1 argument, got 0; usage: granary:policy <name> - "
                        + "activate a policy at its extension point(s), replacing the one in effect at an exclusive point"),
                Arguments.of("granary:policy fair fifo", "granary:policy takes 1 argument, got 2 (extra: \"fifo\"); usage: "
                        + "granary:policy <name> - activate a policy at its extension point(s), replacing the one in effect at an exclusive point"),
                Arguments.of("granary:deselect", "granary:deselect takes 1 argument, got 0; usage: granary:deselect <name> - "
                        + "deselect a policy; an exclusive point falls back to the next installed policy, or waits"),
                Arguments.of("granary:status now", "granary:status takes 0 arguments, got 1 (extra: \"now\"); usage: "
                        + "granary:status - scheduler status as key=value lines"),
                Arguments.of("granary:nodes a b", "granary:nodes takes 0 arguments, got 2 (extra: \"a\"); usage: "
                        + "granary:nodes - list nodes: name, room, capacity, free, units placed, labels, blacklist"),
                Arguments.of("granary:jobs all", "granary:jobs takes 0 arguments, got 1 (extra: \"all\"); usage: "
                        + "granary:jobs - list jobs and their units: granted/desired slots, and why slots wait"),
                Arguments.of("granary:submit", "granary:submit takes 1 argument, got 0; usage: granary:submit <file> - "
                        + "submit the job(s) of a JSON file (one job object or an array; see the README for the format)"),
                Arguments.of("granary:submit a.json b.json", "granary:submit takes 1 argument, got 2 (extra: \"b.json\"); usage: "
                        + "granary:submit <file> - submit the job(s) of a JSON file (one job object or an array; see the README for the format)"),
                Arguments.of("granary:cancel", "granary:cancel takes 1 argument, got 0; usage: granary:cancel <job> - "
                        + "cancel a job: its waiting desire is dropped and its slots are released"),
                Arguments.of("granary:blacklist", "granary:blacklist takes 1 argument, got 0; usage: granary:blacklist <node> - "
                        + "put a node on the global blacklist: it takes no new work, running work stays"),
                Arguments.of("granary:unblacklist n0 n1", "granary:unblacklist takes 1 argument, got 2 (extra: \"n1\"); usage: "
                        + "granary:unblacklist <node> - take a node off the global blacklist"),
                Arguments.of("granary:move j", "granary:move takes 2 arguments, got 1; usage: granary:move <job> <queue> - "
                        + "move a job to another queue; its grants stay, its usage and waiting units move"),
                Arguments.of("granary:move", "granary:move takes 2 arguments, got 0; usage: granary:move <job> <queue> - "
                        + "move a job to another queue; its grants stay, its usage and waiting units move"),
                Arguments.of("granary:move j root.a root.b", "granary:move takes 2 arguments, got 3 (extra: \"root.b\"); usage: "
                        + "granary:move <job> <queue> - move a job to another queue; its grants stay, its usage and waiting units move"),
                Arguments.of("granary:why", "granary:why takes 1 argument, got 0; usage: granary:why <job> - why a job's"
                        + " slots wait: per waiting unit what it waits for and since when, the reasons the engine found (most"
                        + " frequent first, with their numbers) and what would help"),
                Arguments.of("granary:why a b", "granary:why takes 1 argument, got 2 (extra: \"b\")"),
                Arguments.of("granary:why ghost", "granary:why: no job \"ghost\" in the scheduler"),
                // echoed arguments: a newline and an escape come back escaped, on one line
                Arguments.of("granary:status \"a\nforged\"", "granary:status takes 0 arguments, got 1 (extra: \"a\\nforged\"); usage: "
                        + "granary:status - scheduler status as key=value lines"),
                Arguments.of("granary:jobs \"x\u001b]0;title\u0007\"", "granary:jobs takes 0 arguments, got 1 (extra: \"x\\u001B]0;title\\u0007\"); usage: "
                        + "granary:jobs - list jobs and their units: granted/desired slots, and why slots wait"),
                Arguments.of("granary:move \"j\nmoved j to root.x\"", "granary:move takes 2 arguments, got 1; usage: granary:move <job> <queue> - "
                        + "move a job to another queue; its grants stay, its usage and waiting units move"),
                // billing [day]
                Arguments.of("granary:billing yesterday", "billing: day 'yesterday' is not yyyy-MM-dd"),
                Arguments.of("granary:billing 2026-02-30", "billing: day '2026-02-30' is not a day of the calendar (yyyy-MM-dd, month 01-12, day within the month)"),
                Arguments.of("granary:billing 2026-13-01", "billing: day '2026-13-01' is not a day of the calendar (yyyy-MM-dd, month 01-12, day within the month)"),
                Arguments.of("granary:billing 2025-02-29", "billing: day '2025-02-29' is not a day of the calendar (yyyy-MM-dd, month 01-12, day within the month)"),
                Arguments.of("granary:billing \"2026-01-01\nx\"", "billing: day '2026-01-01\\nx' is not yyyy-MM-dd"),
                Arguments.of("granary:billing 2026-01-01 2026-01-02", "granary:billing takes 0 or 1 arguments, got 2; usage: granary:billing [day] - "
                        + "billing of every day kept, or of one day: per day, slice and group, usage integrated over time"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("wrongCalls")
    void aWrongCallAnswersItsMessage(String line, String expected) {
        String message = error(line);
        assertTrue(message.contains(expected), line + "\nexpected: " + expected + "\nactual:   " + message);
        assertFalse(message.contains("Cannot coerce"), message);
        assertEquals(-1, message.indexOf('\u001b'), "no raw escape reaches the terminal: " + message);
        assertEquals(1, message.lines().count(), "no forged line: " + message);
    }

    @Test
    void aTenThousandCharacterArgumentIsEchoedCut() {
        String huge = "x".repeat(10_000);
        String message = error("granary:status " + huge);
        assertTrue(message.startsWith("granary:status takes 0 arguments, got 1 (extra: \"" + "x".repeat(200) + "…\" (10000 chars))"), message);
        assertTrue(message.length() < 500, "cut: " + message.length());
        String billing = error("granary:billing " + huge);
        assertTrue(billing.length() < 500, "cut: " + billing);
    }

    @Test
    void aWellFormedDayWithoutBillingIsNotAnError() throws Exception {
        assertEquals("no billing yet", String.valueOf(session.execute("granary:billing 2026-02-28")));
        assertEquals("no billing yet", String.valueOf(session.execute("granary:billing 2028-02-29")));
    }

    @Test
    void rightCallsStillRun() throws Exception {
        assertTrue(String.valueOf(session.execute("granary:status")).contains("nodes=1"));
        assertEquals("blacklisted n0", String.valueOf(session.execute("granary:blacklist n0")));
        assertEquals("unblacklisted n0: granted 0 slots", String.valueOf(session.execute("granary:unblacklist n0")));
    }

    @Test
    void everyCoreCommandHasAUsageLineFromItsDescriptor() throws Exception {
        assertEquals(Commands.CORE_NAMES, Commands.USAGE.keySet());
        for (String name : Commands.CORE_NAMES) {
            Method described = Stream.of(Commands.class.getMethods())
                    .filter(m -> m.getName().equals(name) && m.getAnnotation(Descriptor.class) != null && !m.isVarArgs())
                    .findFirst().orElseThrow();
            assertTrue(Commands.USAGE.get(name).endsWith(" - " + described.getAnnotation(Descriptor.class).value()), name);
            assertEquals(described.getParameterCount(), Commands.USAGE.get(name).split(" - ", 2)[0].split(" ").length - 1, name);
        }
    }
}
