package granary.jobmaster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.api.model.UnitKind;
import granary.api.model.UnitSpec;
import java.io.PrintStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --online=N} and {@code --online-command=CMD}: parsed as strictly as every other option. */
class SettingsTest {

    private static final List<String> BASE = List.of("--master=http://127.0.0.1:7070", "--token-file=t", "--job=j",
            "--tasks=3", "--command=true");

    private static Settings parse(String... extra) {
        List<String> a = new ArrayList<>(BASE);
        a.addAll(List.of(extra));
        return Settings.parse(a.toArray(new String[0]));
    }

    @Test
    void withoutOnlineThereIsNoServiceAndTheJobHasOneUnit() {
        Settings s = parse();
        assertEquals(0, s.online());
        assertEquals(Settings.DEFAULT_ONLINE_COMMAND, s.onlineCommand());
        var job = sample(s).job(3, s.online());
        assertEquals(List.of("tasks"), job.units().stream().map(UnitSpec::name).toList());
    }

    @Test
    void onlineAddsAnOnlineUnitServiceOfNSlots() {
        Settings s = parse("--online=2", "--online-command=exec sleep 5");
        assertEquals(2, s.online());
        assertEquals("exec sleep 5", s.onlineCommand());
        var job = sample(s).job(3, s.online());
        UnitSpec svc = job.units().get(0);
        assertEquals("service", svc.name());
        assertEquals(UnitKind.ONLINE, svc.kind());
        assertEquals(2, svc.desired());
        assertEquals(UnitKind.OFFLINE, job.units().get(1).kind());
        assertEquals(3, job.units().get(1).desired());
    }

    private static SampleJobMaster sample(Settings s) {
        return new SampleJobMaster(s, new granary.protocol.link.ManualLoop(new granary.api.model.ManualClock(0)), null, l -> { }, l -> { });
    }

    /** {@code --master} takes every master of an HA cluster, comma-separated, each checked (docs/ha.md). */
    @Test
    void theMastersOfAClusterAreAllListedAndEachIsChecked() {
        String[] rest = {"--token-file=t", "--job=j", "--tasks=3", "--command=true"};
        List<String> a = new ArrayList<>(List.of("--master=http://10.0.0.1:7070, https://10.0.0.2:7443"));
        a.addAll(List.of(rest));
        assertEquals(List.of(java.net.URI.create("http://10.0.0.1:7070"), java.net.URI.create("https://10.0.0.2:7443")),
                Settings.parse(a.toArray(new String[0])).masters());
        for (String bad : List.of("http://a:1,ftp://b:2", "http://a:1,", "http://a:1,http://a:1")) {
            List<String> b = new ArrayList<>(List.of("--master=" + bad));
            b.addAll(List.of(rest));
            IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> Settings.parse(b.toArray(new String[0])), bad);
            assertTrue(ex.getMessage().startsWith("option --master: "), ex.getMessage());
        }
    }

    @Test
    void badOnlineOptionsAreRefusedNamingThem() {
        for (String[] bad : List.of(new String[] {"--online=-1"}, new String[] {"--online=two"}, new String[] {"--online="},
                new String[] {"--online=1", "--online=2"}, new String[] {"--online-command=sleep 1"},
                new String[] {"--online=1", "--online-command="}, new String[] {"--online=0", "--online-command=x"},
                new String[] {"--onlin=1"})) {
            IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> parse(bad), String.join(" ", bad));
            assertTrue(ex.getMessage().contains("--onlin"), ex.getMessage());
        }
    }

    /** {@code --restartable=RES}: the master may start this job master again with its own command line (docs/recovery.md). */
    @Test
    void restartableSendsTheCommandLineItWasStartedWith() {
        Settings s = parse("--restartable=cpu=50,mem=512");
        assertEquals(granary.api.model.Resources.of(50, 512), s.restartable());
        assertEquals(granary.api.model.Resources.of(50, 256), parse().restartable(), "restartable by default (case 3)");
        assertEquals(null, parse("--restartable=off").restartable(), "off: not started again");
        String[] args = {"--master=http://127.0.0.1:7070", "--token-file=t", "--job=j", "--tasks=3", "--command=true",
                "--restartable=cpu=50,mem=512"};
        granary.protocol.Request.Restart spec = SelfRestart.spec(s.restartable(), args);
        List<String> command = spec.program().command();
        assertTrue(command.get(0).endsWith("/bin/java"), command.toString());
        assertEquals(List.of(Main.class.getName()), command.subList(3, 4));
        assertEquals(List.of(args), command.subList(4, command.size()));
        assertEquals(java.nio.file.Path.of("").toAbsolutePath().toString(), spec.program().workingDirectory());
        assertEquals(s.restartable(), spec.size());
        for (String bad : List.of("--restartable=", "--restartable=cpu=0", "--restartable=cpu=-5", "--restartable=lots")) {
            IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> parse(bad), bad);
            assertTrue(ex.getMessage().contains("--restartable"), ex.getMessage());
        }
    }

    /** {@code --state}: the progress and hints directory, by default one per job master id in the working directory. */
    @Test
    void theStateIsKeptPerJobMasterUnlessOff() {
        assertEquals(java.nio.file.Path.of("granary-jm-jm-j.state").toAbsolutePath(), parse().state());
        assertEquals(java.nio.file.Path.of("/var/lib/jm").toAbsolutePath(), parse("--state=/var/lib/jm").state());
        assertEquals(null, parse("--state=off").state());
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () -> parse("--state="));
        assertTrue(ex.getMessage().contains("--state"), ex.getMessage());
    }

    @Test
    void theUsageNamesTheNewOptions() {
        assertTrue(Settings.USAGE.contains("--online=N") && Settings.USAGE.contains("--online-command=CMD"));
    }
}
