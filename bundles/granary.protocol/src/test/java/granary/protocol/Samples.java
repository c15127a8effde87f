package granary.protocol;

import granary.api.model.JobSpec;
import granary.api.model.Problem;
import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import java.util.List;
import java.util.Map;

/** One filled-in message of every type, for round trips and sessions. */
final class Samples {

    static final UnitId MAP = new UnitId("wordcount-7", "map");
    static final Sender AGENT = new Sender(Role.AGENT, "n7");
    static final Sender JOB_MASTER = new Sender(Role.JOB_MASTER, "jm-1");

    private Samples() {
    }

    static List<Message> all() {
        JobSpec job = JobSpec.of("wordcount-7", "root.batch",
                UnitSpec.builder("map").slot(100, 2048).desired(4).priority(2).build());
        return List.of(
                new Register("n7", "room-2", Map.of("disk", "ssd", "zone", "b"), Resources.of(400, 8192, Map.of("gpu", 1L)), "http://10.0.0.7:7071"),
                new Register("n8", "room-2", Map.of(), Resources.of(400, 8192), "http://10.0.0.8:7071",
                        List.of(new Cap.Grant("jm-1", MAP, 2, "ab12", Resources.of(100, 2048), true))),
                new Register("n3", "room-2", Map.of(), Resources.of(400, 8192), "http://10.0.0.3:7072", List.of(), 4),
                new Heartbeat(List.of(new Heartbeat.Worker(MAP, 0), new Heartbeat.Worker(MAP, 1)),
                        List.of(new Heartbeat.Exit(MAP, 2, 0), new Heartbeat.Exit(MAP, 3, -9)), Resources.of(200, 4096)),
                new Heartbeat(List.of(), List.of(), null),
                new Heartbeat(List.of(), List.of(), null, List.of(new Heartbeat.Worker(MAP, 4))),
                new Request(true, List.of(job), List.of(new Request.Desire(MAP, 6)), List.of("old-job"),
                        List.of(new Request.Release(MAP, "n3", 2))),
                new Request(true, List.of(job), List.of(), List.of(), List.of(),
                        List.of(new Request.Holding(MAP, "n7", 3), new Request.Holding(MAP, "n3", 1))),
                new Request(true, List.of(job), List.of(), List.of(), List.of(), List.of(),
                        new Request.Restart(new Program(List.of("/usr/bin/java", "-jar", "jm.jar"), Map.of("JM", "1"), "/srv/jm"),
                                Resources.of(100, 512), "n7")),
                new Request(true, List.of(), List.of(), List.of(), List.of(), List.of(),
                        new Request.Restart(new Program(List.of("jm"), Map.of(), ""), Resources.of(50, 0), null)),
                new Hint(List.of(new Hint.Placement(MAP, "n7", 3, "http://10.0.0.7:7071"), new Hint.Placement(MAP, "n3", 0, "http://10.0.0.3:7071")),
                        List.of(new Hint.Exit(MAP, "n3", 1, 137))),
                new Hint(List.of(), List.of(), List.of(new Hint.NodeState("n3", Hint.NodeState.LOST), new Hint.NodeState("n7", Hint.NodeState.BACK))),
                new Hint(List.of(new Hint.Placement(MAP, "n3", 2, "http://10.0.0.3:7072", 4)), List.of()),
                new Cap(List.of(new Cap.Grant("jm-1", MAP, 3, "ab12", Resources.of(100, 2048, Map.of("gpu", 1L)), true)), List.of(new Cap.Grant("jm-2", new UnitId("j2", "u"), 1, "cd34"))),
                new Cap(List.of(new Cap.Grant("jm-1", MAP, 1, "ab12")), List.of(), true),
                new Cap(List.of(), List.of(new Cap.Grant("jm-1", MAP, 0, "ab12")), false, "job wordcount-7 is not running"),
                new Cap(List.of(new Cap.Grant("granary.master", new UnitId("granary.restart-1@jm-1", "job-master"), 1, "ef56",
                        Resources.of(100, 512), true, new Program(List.of("jm", "--restartable"), Map.of("A", "b"), ""))), List.of()),
                new Plan(List.of(new Plan.Launch(MAP, 0, List.of("/bin/wc", "-l", "a b\n\"c\""),
                        Map.of("LANG", "C.UTF-8", "PART", "0"), "/tmp/wc"))),
                new Plan(List.of(new Plan.Launch(MAP, 9, List.of("/bin/true"), Map.of(), "/tmp", 4), new Plan.Launch(MAP, 10, List.of("/bin/true"), Map.of(), "/tmp", 4, true))),
                Ack.applied(41),
                Ack.refused(42, List.of(Problem.of("job wordcount-7", "units[0].slot.cpu", "must not be negative, got -1", 0, -1),
                        Problem.of("job x", "id", "is missing"))));
    }
}
