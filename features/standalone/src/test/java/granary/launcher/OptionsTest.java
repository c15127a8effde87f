package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
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
        assertEquals(new Http.Address("127.0.0.1", 7070), o.listen(), "this machine only, by default");
        assertEquals(null, o.tls());
        assertEquals(null, o.issueToken());
        String secret = Path.of("granary.secret").toAbsolutePath().toString();
        assertEquals(Map.of("granary.master", Map.of("secretFile", secret), "granary.http", Map.of("secretFile", secret)),
                Launcher.configurations(o), "the HTTP API checks its users' tokens under the master's secret");
    }

    @Test
    void everyOption() {
        Options o = parse(new Properties(), "--demo=false", "--strict", "--piped", "--wait=5", "--help");
        assertEquals(new Options(false, true, Options.Mode.PIPED, Duration.ofSeconds(5), true, Map.of()), o);
        assertEquals(Map.of("enabled", false), Launcher.configurations(o).get("granary.demo"));
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
    void theHighAvailabilityOptionsAreSettingsOfTheMaster() {
        Options o = parse(new Properties(), "--zk=zk1:2181,zk2:2181", "--ha-cluster=prod", "--advertise=http://10.0.0.1:7070",
                "--config=granary.master:haSessionTimeoutMs=5000");
        assertEquals(java.util.Map.of("zk", "zk1:2181,zk2:2181", "haCluster", "prod", "advertise", "http://10.0.0.1:7070",
                "haSessionTimeoutMs", "5000"), o.config().get("granary.master"));
        assertEquals("--zk: a value is missing (--zk=HOST:PORT[,HOST:PORT...])",
                assertThrows(IllegalArgumentException.class, () -> parse(new Properties(), "--zk=")).getMessage());
    }

    @Test
    void badArgumentsAreNamed() {
        assertEquals("unknown argument '-x'; valid: --demo=true|false, --strict, --interactive, --piped, "
                + "--wait=SECONDS, --config=PID:key=value, --listen=HOST:PORT|off, --keystore=FILE, "
                + "--keystore-password-file=FILE, --key-password-file=FILE, --secret=FILE, "
                + "--zk=HOST:PORT[,HOST:PORT...], --ha-cluster=NAME, --advertise=URL, --issue-token=ROLE/ID, --create-secret, --expires=DURATION, --rotate-secret, --revoke-token=TOKEN|ID, --help",
                assertThrows(IllegalArgumentException.class, () -> parse(new Properties(), "-x")).getMessage());
        assertEquals("--demo: 'maybe' is not true or false",
                assertThrows(IllegalArgumentException.class, () -> parse(new Properties(), "--demo=maybe")).getMessage());
        assertEquals("--wait: '0' is not a whole number of seconds >= 1",
                assertThrows(IllegalArgumentException.class, () -> parse(new Properties(), "--wait=0")).getMessage());
    }

    @Test
    void listenTakesHostAndPortOrOff() {
        assertEquals(new Http.Address("0.0.0.0", 0), parse(new Properties(), "--listen=0.0.0.0:0").listen());
        assertEquals(new Http.Address("::1", 8443), parse(new Properties(), "--listen=[::1]:8443").listen());
        assertEquals(null, parse(new Properties(), "--listen=off").listen());
        for (String bad : new String[] {"7070", ":7070", "host:", "host:http", "host:65536", "host:-1"}) {
            assertEquals("--listen: '" + bad + "' is not HOST:PORT (PORT 0-65535, 0 = a free port) or off; "
                    + "e.g. --listen=127.0.0.1:7070",
                    assertThrows(IllegalArgumentException.class, () -> parse(new Properties(), "--listen=" + bad)).getMessage());
        }
    }

    @Test
    void theSecretFileReachesTheMasterAsAnAbsolutePath() {
        Options o = parse(new Properties(), "--secret=conf/master.secret");
        assertEquals(Path.of("conf/master.secret").toAbsolutePath().toString(),
                Launcher.configurations(o).get(Launcher.MASTER_PID).get(Launcher.SECRET_FILE));
        assertEquals("--secret: a file name is missing (--secret=FILE)",
                assertThrows(IllegalArgumentException.class, () -> parse(new Properties(), "--secret=")).getMessage());
    }

    @Test
    void tokenOperationsAreReadAndLifetimesChecked() {
        Options o = parse(new Properties(), "--issue-token=agent/n1", "--expires=30d");
        assertEquals(java.time.Duration.ofDays(30), o.expires());
        assertEquals(java.time.Duration.ofMinutes(90), parse(new Properties(), "--issue-token=agent/n1", "--expires=90m").expires());
        assertEquals("rotate", parse(new Properties(), "--rotate-secret").tokenOp());
        assertEquals("revoke:abc", parse(new Properties(), "--revoke-token=abc").tokenOp());
        for (String bad : new String[] {"30", "0m", "1y", "-5d", "12hours"}) {
            assertEquals("--expires: '" + bad + "' is not a lifetime like 90m, 12h or 30d (at least 1m)",
                    assertThrows(IllegalArgumentException.class, () -> parse(new Properties(), "--issue-token=agent/n1",
                            "--expires=" + bad)).getMessage());
        }
        assertEquals("--expires goes with --issue-token",
                assertThrows(IllegalArgumentException.class, () -> parse(new Properties(), "--expires=1d")).getMessage());
    }

    @Test
    void issueTokenNeedsARoleAndAnId() {
        assertEquals("agent/n1", parse(new Properties(), "--issue-token=agent/n1").issueToken());
        assertEquals("job-master/jm1", parse(new Properties(), "--issue-token=job-master/jm1").issueToken());
        assertEquals("admin/ada", parse(new Properties(), "--issue-token=admin/ada").issueToken(), "a user of the HTTP API");
        assertEquals("reader/rita", parse(new Properties(), "--issue-token=reader/rita").issueToken());
        for (String bad : new String[] {"n1", "agent/", "boss/n1", "admin/"}) {
            assertEquals("--issue-token: expected agent/NODE, job-master/NAME or master/NAME, got '" + bad + "'"
                            + "; for the HTTP API: reader/NAME, operator/NAME or admin/NAME",
                    assertThrows(IllegalArgumentException.class, () -> parse(new Properties(), "--issue-token=" + bad))
                            .getMessage());
        }
    }

    @Test
    void aKeystoreNeedsItsPasswordFileAndAListenAddress() {
        Options o = parse(new Properties(), "--keystore=k.p12", "--keystore-password-file=pw", "--listen=127.0.0.1:8443");
        assertEquals(new Http.Tls(Path.of("k.p12"), Path.of("pw"), null), o.tls());
        assertEquals("--keystore needs --keystore-password-file=FILE (its first line is the password)",
                assertThrows(IllegalArgumentException.class, () -> parse(new Properties(), "--keystore=k.p12")).getMessage());
        assertEquals("--keystore-password-file and --key-password-file need --keystore=FILE",
                assertThrows(IllegalArgumentException.class, () -> parse(new Properties(), "--key-password-file=pw")).getMessage());
        assertEquals("--keystore serves HTTPS on the listen address, but --listen=off turns it off",
                assertThrows(IllegalArgumentException.class,
                        () -> parse(new Properties(), "--keystore=k.p12", "--keystore-password-file=pw", "--listen=off")).getMessage());
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
