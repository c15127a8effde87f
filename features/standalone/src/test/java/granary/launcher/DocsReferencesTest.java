package granary.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * Code comments and documents point into docs/ as {@code docs/<file>.md, "<Heading>"}; every such
 * pointer names a file that exists and a heading it has, so that renaming a heading fails here
 * instead of leaving readers at a dead end. No comment cites a document outside the repository.
 */
class DocsReferencesTest {

    private static final Pattern REF = Pattern.compile("docs/([a-z-]+\\.md)(?:,\\s+(?:\\*\\s*)?\"([^\"]+)\")?");
    private static final Pattern SOURCES = Pattern.compile(".*\\.(java|md|xml|properties|sh)$");

    @Test
    void everyPointerIntoDocsNamesAnExistingFileAndHeading() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent().getParent();
        List<String> dead = new ArrayList<>();
        int pointers = 0;
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : files.filter(p -> SOURCES.matcher(p.toString()).matches())
                    .filter(p -> !root.relativize(p).toString().matches("(.*/)?(target|\\.git|node_modules)/.*")).toList()) {
                String text = read(f);
                Matcher m = REF.matcher(text);
                while (m.find()) {
                    pointers++;
                    Path doc = root.resolve("docs").resolve(m.group(1));
                    if (!Files.isRegularFile(doc)) {
                        dead.add(root.relativize(f) + ": no " + doc.getFileName());
                    } else if (m.group(2) != null && read(doc).lines().noneMatch(l -> l.matches("#+ " + Pattern.quote(heading(m.group(2)))))) {
                        dead.add(root.relativize(f) + ": " + m.group(1) + " has no heading \"" + heading(m.group(2)) + "\"");
                    }
                }
                assertTrue(!text.contains("spec " + "§"), root.relativize(f) + " cites a spec outside the repository");
            }
        }
        assertTrue(pointers > 50, "pointers into docs/: " + pointers);
        assertEquals(List.of(), dead);
    }

    /** A heading as quoted, with a comment's line break inside it ("The fit\n * search") undone. */
    private static String heading(String quoted) {
        return quoted.replaceAll("\\s*\\R\\s*(\\*\\s*|//\\s*)?", " ").strip();
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
