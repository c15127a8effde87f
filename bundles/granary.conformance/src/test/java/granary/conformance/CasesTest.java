package granary.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every named case of docs/recovery.md passes on the real master, with a fixed seed. */
class CasesTest {

    static Stream<Arguments> cases() {
        return Cases.all().stream().map(c -> Arguments.of(c.id() + " " + c.title(), c));
    }

    @ParameterizedTest(name = "case {0}")
    @MethodSource("cases")
    void passes(String name, Case c) {
        Cases.Outcome o = Cases.run(c, 42);
        assertTrue(o.passed(), () -> "case " + name + " (" + c.injected() + "):\n  " + String.join("\n  ", o.violations())
                + "\nlog:\n  " + String.join("\n  ", o.log()));
    }
}
