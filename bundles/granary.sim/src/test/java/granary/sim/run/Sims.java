package granary.sim.run;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import granary.sim.report.ResultsJson;
import granary.sim.trace.TraceFormat;

/** Replays for the tests: the real engine, the policies of the class path, strict invariant checks. */
final class Sims {

    static final ClassPathPolicies POLICIES = new ClassPathPolicies();

    private Sims() {
    }

    static Replay.Request request(TraceFormat f, Path trace, Map<String, String> options, List<String> cluster, String sets,
                                  SimSettings settings, long seed) {
        return new Replay.Request(f, trace, options, cluster, PolicySetSpec.parseAll(sets), settings, seed, Long.MAX_VALUE,
                Long.MAX_VALUE);
    }

    static Replay.Report run(Replay.Request r) {
        return Replay.run(r, POLICIES, Progress.NONE);
    }


    /** results.json without the wall-clock figures: what must be the same for the same inputs. */
    static String deterministicJson(Replay.Report report) {
        JsonObject o = ResultsJson.json(report);
        for (JsonElement run : o.getAsJsonArray("runs")) {
            run.getAsJsonObject().remove("performance");
        }
        return o.toString();
    }

    static SimSettings strict() {
        return SimSettings.DEFAULTS.withInvariantChecks(true);
    }
}
