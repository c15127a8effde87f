package granary.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import granary.api.event.PolicyInstalled;
import granary.api.model.Clock;
import granary.api.model.InvalidRequestException;
import granary.api.report.Cell;
import granary.api.report.Report;
import granary.api.report.Row;
import granary.api.report.Section;
import granary.api.spi.CommandSpec;
import granary.api.spi.EngineView;
import granary.api.spi.Invocation;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.Reconfigurable;
import granary.api.spi.UnitOrder;
import granary.api.spi.UnitView;
import granary.engine.Engine;
import granary.engine.EngineOptions;
import granary.engine.EventLoop;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The console offers the reports and commands of a policy it has never heard of, from its declaration
 * alone: {@code tally}, declared here, with a report of every layout and a command that changes it.
 */
class PolicyConsoleTest {

    /** A unit order that keeps a number operators can read and set. */
    static final class TallyPolicy implements UnitOrder, Reconfigurable {
        long tally = 3;

        @Override
        public String name() {
            return "tally";
        }

        @Override
        public int compare(UnitView a, UnitView b) {
            return Long.compare(a.submitTime(), b.submitTime());
        }

        @Override
        public List<String> reconfigure(Object settings, EngineView view) {
            tally = (Long) settings;
            return List.of("tally: now " + tally);
        }
    }

    static final PolicyDeclaration TALLY = PolicyDeclaration.of("tally", TallyPolicy.class)
            .description("counts")
            .factory(s -> new TallyPolicy())
            .report("tally-report", "the tally in every layout", (p, v) -> Report.of(
                    Section.line("head", Cell.of("tally", p.tally), Cell.bare("state", "ok")),
                    Section.fields("details", Cell.of("nodes", v.cluster().nodes().size()), Cell.of("half", p.tally / 2.0).shownAs("~" + p.tally / 2)),
                    Section.table("rows", List.of(Row.of(Cell.bare("name", "root"), Cell.of("n", p.tally)),
                            Row.nested(1, Cell.bare("name", "root.child"), Cell.of("n", 1))), null),
                    Section.table("none", List.of(), "nothing else")))
            .command(CommandSpec.of("tally-set", "sets the tally", List.of(CommandSpec.required("n", "the new tally")),
                    args -> {
                        if (!args.get(0).matches("\\d+")) {
                            throw new InvalidRequestException("tally-set", "n", "'" + args.get(0) + "' is not a number");
                        }
                        return Invocation.reconfigure(Long.parseLong(args.get(0)));
                    }))
            .build();

    private EventLoop loop;

    @BeforeEach
    void start() {
        loop = new EventLoop(new Engine(Clock.system(), new EngineOptions(List.of("tally"), List.of("tally"), true)), 1000, "test")
                .start();
        Commands.await(loop.submit(new PolicyInstalled(new TallyPolicy(), "test.tally 1.0.0")));
    }

    @AfterEach
    void stop() {
        loop.close();
    }

    private final Map<String, PolicyFunction> shell = new TreeMap<>();

    private PolicyConsole console() {
        return new PolicyConsole(loop, (name, f) -> {
            shell.put(name, f);
            return () -> shell.remove(name);
        }, Commands.CORE_NAMES);
    }

    @Test
    void rendersAReportOfAnUnknownPolicyAndRunsItsCommand() {
        console().added("tally bundle", TALLY);
        assertEquals(Set.of("tally-report", "tallyReport", "tally-set", "tallySet"), shell.keySet());
        assertEquals("""
                tally=3 ok
                nodes=0
                half=~1
                root          n=3
                  root.child  n=1
                nothing else""", shell.get("tally-report").run(List.of()));
        assertEquals("tally: now 8", shell.get("tallySet").run(List.of("8")));
        assertTrue(shell.get("tallyReport").run(List.of()).startsWith("tally=8 ok"));
    }

    @Test
    void argumentsAreCheckedAndUsageIsPrinted() {
        console().added("tally bundle", TALLY);
        assertEquals("granary:tally-set <n> - sets the tally", shell.get("tally-set").run(List.of("--help")));
        IllegalArgumentException count = assertThrows(IllegalArgumentException.class, () -> shell.get("tally-set").run(List.of()));
        assertTrue(count.getMessage().startsWith("granary:tally-set takes 1 arguments, got 0"), count.getMessage());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> shell.get("tally-set").run(List.of("x")));
        assertEquals("tally-set: n: 'x' is not a number", bad.getMessage());
    }

    @Test
    void aPolicyThatGoesTakesItsFunctionsAndCoreNamesStayCore() {
        PolicyConsole console = console();
        console.added("tally bundle", TALLY);
        PolicyDeclaration clash = PolicyDeclaration.of("clash", TallyPolicy.class).factory(s -> new TallyPolicy())
                .report("status", "would hide granary:status", (p, v) -> Report.message("no"))
                .report("tally-report", "taken by tally", (p, v) -> Report.message("no"))
                .build();
        console.added("clash bundle", clash);
        assertEquals(4, shell.size(), shell.keySet().toString());
        console.removed("tally bundle");
        assertEquals(List.of(), new ArrayList<>(shell.keySet()));
        assertEquals(Set.of(), console.names());
    }

    @Test
    void aPolicyThatIsNotInstalledIsNamed() {
        PolicyDeclaration other = PolicyDeclaration.of("other", TallyPolicy.class).factory(s -> new TallyPolicy())
                .report("other", "of a policy the engine does not have", (p, v) -> Report.message("no")).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PolicyConsole.functions(other, loop).get(0).run(List.of()));
        assertEquals("policy other is not installed (granary:policies lists what is)", e.getMessage());
    }
}
