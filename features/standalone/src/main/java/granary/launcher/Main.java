package granary.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Entry point of the runnable jar. It uses the JDK only: the OSGi framework sits in the jar as a
 * nested jar ({@code framework/*.jar}), is extracted to a temporary directory and loaded, together
 * with the launcher, in a fresh class loader; then {@code Launcher.run} takes over.
 *
 * <p>Why not unpack the framework's classes into the runnable jar: Equinox reads the system
 * bundle's headers (its exports of {@code org.osgi.*}) from the manifest of the jar it was loaded
 * from, and a merged jar has the launcher's manifest. Kept whole, both frameworks run from their
 * own, unchanged jars, and the two runnable jars differ in that one entry only.
 */
public final class Main {

    /** Where the runnable jar keeps the framework jar (exactly one). */
    static final String FRAMEWORK_DIR = "framework/";

    // Named by string, not by class literal: this class must not load the launcher in its own loader.
    private static final String LAUNCHER = "granary.launcher.Launcher";
    private static final int EXIT_STARTUP = 3;   // Launcher.EXIT_STARTUP

    private Main() {
    }

    public static void main(String[] args) {
        int code;
        Path work = null;
        try {
            Path self = selfJar();
            work = workDirectory(System.getProperty(WORK_DIR_PROPERTY));
            code = launch(args, self, work);
        } catch (LaunchException e) {
            System.err.println("Error: " + e.getMessage());
            code = EXIT_STARTUP;
        } catch (IOException | RuntimeException e) {
            System.err.println("Error: cannot start: " + e);
            code = EXIT_STARTUP;
        } finally {
            if (work != null) {
                deleteTree(work);
            }
        }
        System.out.flush();
        System.exit(code);   // ends lingering non-daemon threads of bundles that did not stop
    }

    private static int launch(String[] args, Path self, Path work) throws IOException, LaunchException {
        Path framework = extractFramework(self, work.resolve("framework"));
        URL[] path = {self.toUri().toURL(), framework.toUri().toURL()};
        // The platform loader as parent, not the application loader: the launcher's classes must be
        // loaded again here, next to the framework's org.osgi classes they use.
        // Never closed: a shutdown hook (Ctrl-C) may still load launcher classes from it; the JVM exits next.
        URLClassLoader loader = new URLClassLoader("granary-launcher", path, ClassLoader.getPlatformClassLoader());
        try {
            Thread.currentThread().setContextClassLoader(loader);
            Object code = loader.loadClass(LAUNCHER)
                    .getMethod("run", String[].class, Path.class, Path.class, PrintStream.class, PrintStream.class,
                            InputStream.class)
                    .invoke(null, args, self, work, System.out, System.err, System.in);
            return (Integer) code;
        } catch (InvocationTargetException e) {
            throw new LaunchException("the launcher failed: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new LaunchException("the runnable jar is incomplete: " + e, e);
        }
    }

    /** The jar this class was loaded from. */
    static Path selfJar() throws LaunchException {
        try {
            Path p = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!Files.isRegularFile(p)) {
                throw new LaunchException("run the packaged jar (java -jar granary-standalone.jar), not " + p);
            }
            return p;
        } catch (URISyntaxException | SecurityException e) {
            throw new LaunchException("cannot locate the runnable jar: " + e, e);
        }
    }

    /** Copies the one {@code framework/*.jar} entry of the runnable jar to {@code dir}. */
    static Path extractFramework(Path self, Path dir) throws IOException, LaunchException {
        try (ZipFile zip = new ZipFile(self.toFile())) {
            List<? extends ZipEntry> entries = zip.stream()
                    .filter(e -> e.getName().startsWith(FRAMEWORK_DIR) && e.getName().endsWith(".jar"))
                    .toList();
            if (entries.size() != 1) {
                throw new LaunchException(self.getFileName() + " must hold exactly one framework jar in "
                        + FRAMEWORK_DIR + ", found " + entries.stream().map(ZipEntry::getName).toList());
            }
            ZipEntry entry = entries.get(0);
            Files.createDirectories(dir);
            Path target = dir.resolve(entry.getName().substring(FRAMEWORK_DIR.length()));
            try (InputStream in = zip.getInputStream(entry)) {
                Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            }
            return target;
        }
    }

    /** Where the runtime's work directories go, if not java.io.tmpdir: {@code -Dgranary.work.dir=DIR}. */
    static final String WORK_DIR_PROPERTY = "granary.work.dir";
    private static final String PREFIX = "granary-";

    /**
     * A fresh work directory (framework storage, the extracted framework) named after this process,
     * {@code granary-<pid>-*}, in {@code parent} (java.io.tmpdir when null). A clean stop deletes it;
     * a killed runtime cannot, so each start first deletes those of processes that no longer run.
     */
    static Path workDirectory(String parent) throws IOException {
        Path dir = Files.createDirectories(Path.of(parent == null ? System.getProperty("java.io.tmpdir") : parent));
        removeLeftOvers(dir);
        return Files.createTempDirectory(dir, PREFIX + ProcessHandle.current().pid() + "-");
    }

    /** Deletes the {@code granary-<pid>-*} directories in {@code dir} whose process is gone; returns how many. */
    static int removeLeftOvers(Path dir) throws IOException {
        int removed = 0;
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path p : entries.toList()) {
                String name = p.getFileName().toString();
                if (!name.startsWith(PREFIX) || !Files.isDirectory(p)) {
                    continue;
                }
                String[] parts = name.substring(PREFIX.length()).split("-", 2);
                if (parts.length == 2 && parts[0].matches("\\d{1,10}")
                        && ProcessHandle.of(Long.parseLong(parts[0])).map(h -> !h.isAlive()).orElse(true)) {
                    deleteTree(p);
                    removed++;
                }
            }
        }
        return removed;
    }

    /** Deletes a directory tree, best effort (a file still open elsewhere may stay behind on some systems). */
    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | RuntimeException e) {
            // best effort: the directory is in the system's temporary area
        }
    }

    /** A start-up problem with a message for the operator. */
    static final class LaunchException extends Exception {
        private static final long serialVersionUID = 1L;

        LaunchException(String message) {
            super(message);
        }

        LaunchException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
