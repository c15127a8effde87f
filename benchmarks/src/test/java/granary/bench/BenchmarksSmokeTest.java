package granary.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Every JMH benchmark runs once, in this JVM, on its smallest parameters: a benchmark whose
 * steady-state checks throw fails the suite here instead of leaving an empty row in a table. It
 * measures nothing and asserts no timing (figures come from benchmarks/run.sh).
 */
class BenchmarksSmokeTest {

    @Test
    void everyBenchmarkRunsOnceOnItsSmallestParameters() throws RunnerException, IOException, ClassNotFoundException {
        Set<String> declared = declaredBenchmarks();
        assertFalse(declared.isEmpty(), "no @Benchmark method found under target/classes");
        Options options = new OptionsBuilder()
                .include("granary\\..*")
                .forks(0)
                .warmupIterations(0)
                .measurementIterations(1)
                .measurementTime(TimeValue.milliseconds(20))
                .param("nodes", "1000")
                .param("waiting", "1000")
                .param("queued", "1000")
                .param("layout", "TAIL")
                .shouldFailOnError(true)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        Set<String> ran = new TreeSet<>();
        results.forEach(r -> ran.add(r.getParams().getBenchmark()));
        assertEquals(declared, ran, "every benchmark ran (and none failed)");
    }

    /** The class.method names of every @Benchmark method of this module. */
    private static Set<String> declaredBenchmarks() throws IOException, ClassNotFoundException {
        Path classes = Path.of("target", "classes");
        Set<String> names = new TreeSet<>();
        try (Stream<Path> s = Files.walk(classes)) {
            for (Path p : s.filter(f -> f.toString().endsWith(".class") && !f.toString().contains("jmh_generated")).toList()) {
                String cls = classes.relativize(p).toString().replace('/', '.').replaceAll("\\.class$", "");
                for (Method m : Class.forName(cls, false, BenchmarksSmokeTest.class.getClassLoader()).getDeclaredMethods()) {
                    if (m.isAnnotationPresent(Benchmark.class)) {
                        names.add(cls + "." + m.getName());
                    }
                }
            }
        }
        return names;
    }
}
