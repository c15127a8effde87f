package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import granary.api.spi.ExtensionPoint;
import granary.sim.run.ClassPathPolicies;
import granary.sim.run.PolicySetSpec;
import granary.sim.run.Progress;
import granary.sim.run.Replay;
import granary.sim.run.RunResult;
import granary.sim.run.SimSettings;
import granary.sim.trace.TraceFormat;
import org.junit.jupiter.api.Test;

/**
 * A replay through every policy the runtime ships (the jars of target/policy-bundles, one per policy
 * module of the root pom, found with ServiceLoader as the simulator finds policies), each alone with
 * its default options and all of them together: every job of a synthetic trace is accepted and runs to
 * its end, with the simulator's invariant checks on. A new policy folder with its module line is
 * replayed here with no change to this test (docs/policies.md, "Writing a policy").
 */
class EveryPolicyReplayIT {

    @Test
    void everyShippedPolicyAloneAndAllTogetherRunEveryJobToItsEnd() throws Exception {
        List<URL> jars = new ArrayList<>();
        try (Stream<Path> files = Files.list(It.target().resolve("policy-bundles"))) {
            for (Path p : files.filter(f -> f.toString().endsWith(".jar")).sorted().toList()) {
                jars.add(p.toUri().toURL());
            }
        }
        try (URLClassLoader loader = new URLClassLoader(jars.toArray(URL[]::new), getClass().getClassLoader())) {
            ClassPathPolicies policies = new ClassPathPolicies(loader);
            assertEquals(PolicyResourcesIT.policyModules(), policies.names(), "a policy provider per policy module");
            List<String> sets = new ArrayList<>(policies.names());
            sets.add(String.join(",", policies.names()));
            boolean gangs = policies.declarations().stream().anyMatch(d -> d.points().contains(ExtensionPoint.GANG_PLACEMENT));
            Replay.Request r = new Replay.Request(TraceFormat.SYNTHETIC, null, Map.of("jobs", "120", "rate", "2",
                    "slots", "uniform:1:6", "duration", "exp:20", "gang", gangs ? "0.3" : "0", "units", "uniform:1:2"),
                    List.of("nodes=6,cpu=1600,mem=65536,rooms=2"), PolicySetSpec.parseAll(String.join("|", sets)),
                    SimSettings.DEFAULTS.withInvariantChecks(true), 5, Long.MAX_VALUE, Long.MAX_VALUE);
            Replay.Report report = Replay.run(r, policies, Progress.NONE);
            assertEquals(sets.size(), report.runs().size());
            for (RunResult run : report.runs()) {
                String set = run.label();
                assertEquals(0, run.jobs().refused(), set + ": " + run.jobs().refusalExamples());
                assertEquals(120, run.jobs().submitted(), set);
                assertEquals(120, run.jobs().finished(), set + ": every job ran to its end");
                assertTrue(run.notes().stream().noneMatch(n -> n.contains("failed") || n.contains("aborted")), set + ": " + run.notes());
            }
        }
    }
}
