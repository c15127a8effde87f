package granary.sim.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import granary.api.spi.ExtensionPoint;
import granary.sim.trace.TraceFormat;

import org.junit.jupiter.api.Test;

/**
 * A replay through every policy on the simulator's test class path (the policy modules its pom lists
 * as test dependencies), found with ServiceLoader as the simulator finds them, one at a time and all
 * together, with tables for quota and queues. That every policy module of the repository, one added
 * later included, is replayed is checked on the runtime's policy jars (EveryPolicyReplayIT of
 * features/standalone), not here: a new policy touches only its own folder and one module line.
 */
class AllPoliciesReplayTest {

    private static final Pattern POLICY_DEPENDENCY = Pattern.compile("<artifactId>granary\\.policy\\.([a-z0-9-]+)</artifactId>");

    /** The policies the simulator's pom puts on its test class path. */
    private static Set<String> ofThePom() throws IOException {
        Set<String> out = new TreeSet<>();
        Matcher m = POLICY_DEPENDENCY.matcher(Files.readString(Path.of("pom.xml")));
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    @Test
    void everyPolicyOfThePomIsInstalled() throws IOException {
        assertTrue(ofThePom().size() >= 8, "policy test dependencies of the pom: " + ofThePom());
        Set<String> missing = new TreeSet<>(ofThePom());
        missing.removeAll(Sims.POLICIES.names());
        assertEquals(Set.of(), missing, "policies of the pom without a PolicyProvider on the simulator's class path; "
                + "installed: " + Sims.POLICIES.names());
    }

    private static SimSettings settings() throws IOException {
        Path table = Files.createTempFile("granary-quota-", ".json");
        Path tree = Files.createTempFile("granary-queues-", ".json");
        table.toFile().deleteOnExit();
        tree.toFile().deleteOnExit();
        Files.writeString(table, "{\"default\": {"
                + "\"g0\": {\"GroupId\": 1, \"MaxQuota\": 1000, \"MinQuota\": 10}, \"g1\": {\"GroupId\": 2, \"MaxQuota\": 1000, \"MinQuota\": 10},"
                + "\"g2\": {\"GroupId\": 3, \"MaxQuota\": 1000, \"MinQuota\": 0}, \"g3\": {\"GroupId\": 4, \"MaxQuota\": 1000, \"MinQuota\": 0}}}");
        Files.writeString(tree, "{\"queues\": {\"g0\": {\"capacity\": \"25%\"}, \"g1\": {\"capacity\": \"25%\"},"
                + " \"g2\": {\"capacity\": \"25%\"}, \"g3\": {\"capacity\": \"25%\"}}}");
        return Sims.strict().withPolicyOption("quota", "tableFile", table.toString(), "--quota")
                .withPolicyOption("queues", "file", tree.toString(), "--queues");
    }

    @Test
    void aReplayThroughEachInstalledPolicyAndThroughAllOfThemTogether() throws IOException {
        List<String> sets = new ArrayList<>(Sims.POLICIES.names());
        sets.add(String.join(",", Sims.POLICIES.names()));
        boolean gangs = PolicySetup.available(Sims.POLICIES, ExtensionPoint.GANG_PLACEMENT);
        Replay.Request r = Sims.request(TraceFormat.SYNTHETIC, null, Map.of("jobs", "150", "rate", "2", "slots", "uniform:1:6",
                "duration", "exp:20", "gang", gangs ? "0.3" : "0", "units", "uniform:1:2"),
                List.of("nodes=6,cpu=1600,mem=65536,rooms=2"), String.join("|", sets), settings(), 5);
        Replay.Report report = Sims.run(r);
        for (RunResult run : report.runs()) {
            String set = run.label();
            assertEquals(0, run.jobs().refused(), set + ": " + run.jobs().refusalExamples());
            assertEquals(150, run.jobs().submitted(), set);
            assertEquals(150, run.jobs().finished(), set + ": every job ran to its end");
            assertTrue(run.notes().stream().noneMatch(n -> n.contains("failed") || n.contains("aborted")), set + ": " + run.notes());
            for (PolicySource.Created c : List.of(Sims.POLICIES.create(set.contains(",") ? "fifo" : set, Map.of()))) {
                for (ExtensionPoint p : ExtensionPoint.of(c.policy())) {
                    if (!set.contains(",") && !p.exclusive()) {
                        assertTrue(List.of(run.effective().get(p.id()).split(",\\s*")).contains(set), set + " in effect at " + p.id()
                                + ": " + run.effective());
                    }
                }
            }
        }
        assertTrue(report.runs().stream().anyMatch(run -> run.effective().get("unit-order").equals("fair")));
    }
}
