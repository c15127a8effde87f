package granary.launcher;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.jar.JarInputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * A bundle jar packed inside the runnable jar under {@code bundles/}. The build copies there every
 * bundle the module's pom lists as a runtime dependency: the pom is the one list of the bundle set.
 *
 * @param entry        path inside the runnable jar, e.g. {@code bundles/granary.api.jar}
 * @param symbolicName its Bundle-SymbolicName (without directives)
 * @param content      the bundle jar
 */
public record EmbeddedBundle(String entry, String symbolicName, byte[] content) {

    /** Folder of the bundle jars inside the runnable jar. */
    public static final String DIR = "bundles/";

    /** The bundle as a stream, for {@code BundleContext.installBundle(location, stream)}. */
    public InputStream open() {
        return new ByteArrayInputStream(content);
    }

    /** True for the project's own bundles; the launcher starts them after the runtime services. */
    public boolean isGranary() {
        return symbolicName.startsWith("granary.");
    }

    /** Every bundle packed in {@code jar}, in entry name order. */
    public static List<EmbeddedBundle> listIn(Path jar) throws IOException {
        List<EmbeddedBundle> bundles = new ArrayList<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (ZipEntry e : zip.stream().sorted(Comparator.comparing(ZipEntry::getName)).toList()) {
                String name = e.getName();
                if (name.startsWith(DIR) && name.endsWith(".jar") && name.indexOf('/', DIR.length()) < 0) {
                    try (InputStream in = zip.getInputStream(e)) {
                        byte[] content = in.readAllBytes();
                        bundles.add(new EmbeddedBundle(name, symbolicName(name, content), content));
                    }
                }
            }
        }
        if (bundles.isEmpty()) {
            throw new IOException(jar + " holds no bundle jars in " + DIR);
        }
        return bundles;
    }

    private static String symbolicName(String entry, byte[] content) throws IOException {
        try (JarInputStream in = new JarInputStream(new ByteArrayInputStream(content))) {
            Manifest m = in.getManifest();
            String bsn = m == null ? null : m.getMainAttributes().getValue("Bundle-SymbolicName");
            if (bsn == null) {
                throw new IOException(entry + " is not an OSGi bundle: its manifest has no Bundle-SymbolicName");
            }
            int semicolon = bsn.indexOf(';');
            return (semicolon < 0 ? bsn : bsn.substring(0, semicolon)).trim();
        }
    }

    @Override
    public String toString() {
        return symbolicName + " (" + entry + ")";
    }
}
