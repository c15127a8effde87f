package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.osgi.framework.launch.FrameworkFactory;

/**
 * What the integration tests share. Failsafe runs them once per framework (see the pom): the
 * system property {@code granary.it.framework} says which, and {@code granary.it.jar} names the
 * runnable jar of that framework.
 */
final class It {

    /** Generous: a 2-core build machine may be busy with other modules. */
    static final Duration TIMEOUT = Duration.ofSeconds(60);

    private It() {
    }

    /** {@code felix} or {@code equinox}. */
    static String framework() {
        return System.getProperty("granary.it.framework", "felix");
    }

    /** The runnable jar under test. */
    static Path runnableJar() {
        Path jar = Path.of(System.getProperty("granary.it.jar", "target/granary-standalone.jar"));
        assertTrue(Files.isRegularFile(jar), jar + " missing: run 'mvn verify', which packages it first");
        return jar;
    }

    /** The build directory. */
    static Path target() {
        return Path.of(System.getProperty("granary.it.target", "target"));
    }

    /** The one framework on this run's class path; fails if it is not the one the run is for. */
    static FrameworkFactory factory() {
        Iterator<FrameworkFactory> it = ServiceLoader.load(FrameworkFactory.class).iterator();
        assertTrue(it.hasNext(), "no FrameworkFactory on the class path");
        FrameworkFactory f = it.next();
        String expected = framework().equals("equinox") ? "org.eclipse.osgi." : "org.apache.felix.framework.";
        assertTrue(f.getClass().getName().startsWith(expected), "expected " + framework() + ", found " + f.getClass());
        assertTrue(!it.hasNext(), "two frameworks on the class path: check classpathDependencyExcludes");
        return f;
    }

    /**
     * The launcher's framework properties for an in-process runtime: its HTTP server on a free port
     * of 127.0.0.1, not the default 7070, which another run may hold.
     */
    static Map<String, String> frameworkProperties(Path work) {
        Map<String, String> p = new LinkedHashMap<>(Launcher.frameworkProperties(work, false));
        try {
            p.putAll(Http.frameworkProperties(new Http.Address("127.0.0.1", 0), null));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);   // no files to read for plain HTTP
        }
        return p;
    }

    /** Polls {@code done} every 20 ms until it holds; fails after {@code timeout} showing the last state. */
    static void await(String what, BooleanSupplier done, Supplier<?> state, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + timeout.toSeconds() + " s: " + what + "; last state: " + state.get());
            }
            try {
                Thread.sleep(20);   // framework state seen from outside it: polled with a deadline
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted while waiting for " + what);
            }
        }
    }

    /** The {@code key=value} lines of a text, in order (other lines are ignored). */
    static Map<String, String> keyValues(String text) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String line : text.split("\\R")) {
            int eq = line.indexOf('=');
            if (eq > 0 && !line.startsWith(" ")) {
                m.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
            }
        }
        return m;
    }
}
