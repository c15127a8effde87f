package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;

class OptionsTest {

    private static Options parse(Properties system, String... args) {
        return Options.parse(args, system);
    }

    @Test
    void defaults() {
        Options o = parse(new Properties());
        assertEquals(new Options(true, false, Options.Mode.AUTO, Duration.ofSeconds(60), false, Map.of()), o);
        assertEquals(Map.of(), Launcher.configurations(o));
    }

    @Test
    void everyOption() {
        Options o = parse(new Properties(), "--demo=false", "--strict", "--piped", "--wait=5", "--help");
        assertEquals(new Options(false, true, Options.Mode.PIPED, Duration.ofSeconds(5), true, Map.of()), o);
        assertEquals(Map.of("granary.demo", Map.of("enabled", false)), Launcher.configurations(o));
        assertEquals(Options.Mode.INTERACTIVE, parse(new Properties(), "--interactive").mode());
    }

    @Test
    void theSystemPropertySetsTheDemoDefault() {
        Properties p = new Properties();
        p.setProperty("granary.demo", "false");
        assertFalse(parse(p).demo());
        assertTrue(parse(p, "--demo=true").demo(), "the command line wins");
    }

    @Test
    void badArgumentsAreNamed() {
        assertEquals("unknown argument '-x'; valid: --demo=true|false, --strict, --interactive, --piped, "
                + "--wait=SECONDS, --config=PID:key=value, --help",
                assertThrows(IllegalArgumentException.class, () -> parse(new Properties(), "-x")).getMessage());
        assertEquals("--demo: 'maybe' is not true or false",
                assertThrows(IllegalArgumentException.class, () -> parse(new Properties(), "--demo=maybe")).getMessage());
        assertEquals("--wait: '0' is not a whole number of seconds >= 1",
                assertThrows(IllegalArgumentException.class, () -> parse(new Properties(), "--wait=0")).getMessage());
    }

    @Test
    void pipedRuntimesStartNoGogoConsole() {
        Map<String, String> p = Launcher.frameworkProperties(java.nio.file.Path.of("/tmp/x"), false);
        assertEquals("--nointeractive", p.get("gosh.args"));
        assertEquals("onFirstInit", p.get("org.osgi.framework.storage.clean"));
        assertEquals("", Launcher.frameworkProperties(java.nio.file.Path.of("/tmp/x"), true).get("gosh.args"));
    }

    @Test
    void configSettingsArePassedToConfigAdmin() {
        Options o = Options.parse(new String[] {"--config=granary.policy.quota:tableFile=/etc/q.json,workerSpans=default:5000,0-9:15000",
                "--config=granary.engine:policies=fair|quota", "--demo=false"}, new java.util.Properties());
        assertEquals("/etc/q.json", o.config().get("granary.policy.quota").get("tableFile"));
        assertEquals("default:5000,0-9:15000", o.config().get("granary.policy.quota").get("workerSpans"));
        assertEquals(java.util.List.of("fair", "quota"),
                java.util.List.of((String[]) o.config().get("granary.engine").get("policies")));
        assertEquals(Boolean.FALSE, Launcher.configurations(o).get(Launcher.DEMO_PID).get("enabled"));
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Options.parse(new String[] {"--config=nopid"}, new java.util.Properties()));
        assertEquals("--config: 'nopid' is not PID:key=value[,key=value]", e.getMessage());
    }
}
