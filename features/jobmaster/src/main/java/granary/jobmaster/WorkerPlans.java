package granary.jobmaster;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.protocol.Plan;

/**
 * What the sample job master's plans launch, and how an agent's refusal of a whole plan is read
 * launch by launch (docs/protocol.md, "Plans"): a task runs the job's command, a service worker the
 * online command, each with its index in the environment.
 */
final class WorkerPlans {

    private static final Pattern LAUNCH_INDEX = Pattern.compile("\\$\\.message\\.launches\\[(\\d+)\\]");

    private final Settings settings;
    private final UnitId tasks;
    private final UnitId service;

    WorkerPlans(Settings settings, UnitId tasks, UnitId service) {
        this.settings = settings;
        this.tasks = tasks;
        this.service = service;
    }

    /** Task {@code t} in slot {@code slot}. */
    Plan.Launch task(int t, int slot) {
        return new Plan.Launch(tasks, slot, List.of("/bin/sh", "-c", settings.command()),
                Map.of("GRANARY_JOB", settings.job(), "GRANARY_TASK", Integer.toString(t),
                        "GRANARY_TASKS", Integer.toString(settings.tasks())), settings.workdir());
    }

    /** Service worker {@code s} in slot {@code slot}. */
    Plan.Launch service(int s, int slot) {
        return new Plan.Launch(service, slot, List.of("/bin/sh", "-c", settings.onlineCommand()),
                Map.of("GRANARY_JOB", settings.job(), "GRANARY_UNIT", SampleJobMaster.SERVICE, "GRANARY_TASK", Integer.toString(s),
                        "GRANARY_TASKS", Integer.toString(settings.online())), settings.workdir());
    }

    /** The problems of a refused plan that name its launch {@code k}. */
    static List<Problem> problemsOf(List<Problem> problems, int k) {
        List<Problem> out = new ArrayList<>();
        for (Problem p : problems) {
            Matcher m = p.field() == null ? null : LAUNCH_INDEX.matcher(p.field());
            if (m != null && m.find() && Integer.parseInt(m.group(1)) == k) {
                out.add(p);
            }
        }
        return out;
    }
}
