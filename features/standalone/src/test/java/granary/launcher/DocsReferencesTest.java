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
 * Code comments and documents point into docs/ as {@code docs/<file>.md, "<Heading>"}, and a policy's
 * code into its own folder's README (the file name, a comma, the heading in quotes); every such pointer names a file
 * that exists and a heading it has, so that renaming a heading fails here instead of leaving readers
 * at a dead end. No comment cites a document outside the repository, an unnamed source ("the
 * article") or a numbered case of a specification instead of saying what the behaviour is; every
 * page of docs/ is in its index; every policy module is documented, in docs/policies.md or in its
 * own README.
 */
class DocsReferencesTest {

    private static final Pattern REF = Pattern.compile("docs/([a-z-]+\\.md)(?:,\\s+(?:\\*\\s*)?\"([^\"]+)\")?");
    /** A pointer into the README of the module the file is in: the file name, a comma, a heading in quotes. */
    private static final Pattern OWN_README = Pattern.compile("(?<![\\w/.-])README\\.md,\\s+(?:\\*\\s*)?\"([^\"]+)\"");
    private static final Pattern SOURCES = Pattern.compile(".*\\.(java|md|xml|properties|sh)$");
    /** Words that cite an outside source or its numbering instead of describing the behaviour. */
    private static final Pattern UNNAMED_SOURCE = Pattern.compile("(?i)the article|spec(ification)? cases? \\d");

    private static Path root() {
        return Path.of("").toAbsolutePath().getParent().getParent();
    }

    private static List<Path> sources(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(p -> SOURCES.matcher(p.toString()).matches())
                    .filter(p -> !root.relativize(p).toString().matches("(.*/)?(target|\\.git|node_modules)/.*")).toList();
        }
    }

    @Test
    void pointersIntoAModulesOwnReadmeNameAHeadingItHas() throws IOException {
        Path root = root();
        List<String> dead = new ArrayList<>();
        for (Path f : sources(root)) {
            Matcher m = OWN_README.matcher(read(f));
            while (m.find()) {
                Path module = f.getParent();
                while (module != null && !Files.isRegularFile(module.resolve("pom.xml"))) {
                    module = module.getParent();
                }
                Path readme = module == null ? null : module.resolve("README.md");
                if (readme == null || !Files.isRegularFile(readme)) {
                    dead.add(root.relativize(f) + ": its module has no README.md");
                } else if (read(readme).lines().noneMatch(l -> l.matches("#+ " + Pattern.quote(heading(m.group(1)))))) {
                    dead.add(root.relativize(f) + ": " + root.relativize(readme) + " has no heading \"" + heading(m.group(1)) + "\"");
                }
            }
        }
        assertEquals(List.of(), dead);
    }

    @Test
    void noMainCodeCitesTheArticleOrANumberedSpecCase() throws IOException {
        Path root = root();
        List<String> found = new ArrayList<>();
        for (Path f : sources(root)) {
            String rel = root.relativize(f).toString();
            if (!rel.contains("/src/main/")) {
                continue;
            }
            List<String> lines = read(f).lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                if (UNNAMED_SOURCE.matcher(lines.get(i)).find()) {
                    found.add(rel + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        assertEquals(List.of(), found, "say what the behaviour is and point at docs/ (docs/<file>.md, \"<Heading>\")");
    }

    /** A doc comment right above another one describes nothing: it was left behind when code moved. */
    @Test
    void noDocCommentIsLeftAboveAnother() throws IOException {
        Path root = root();
        List<String> orphans = new ArrayList<>();
        for (Path f : sources(root)) {
            String rel = root.relativize(f).toString();
            if (!rel.endsWith(".java")) {
                continue;
            }
            List<String> lines = read(f).lines().toList();
            for (int i = 0; i + 1 < lines.size(); i++) {
                if (lines.get(i).strip().endsWith("*/") && lines.get(i + 1).strip().startsWith("/**")) {
                    orphans.add(rel + ":" + (i + 1));
                }
            }
        }
        assertEquals(List.of(), orphans, "a doc comment goes right above what it describes");
    }

    @Test
    void everyPageOfDocsIsInItsIndex() throws IOException {
        Path docs = root().resolve("docs");
        String index = read(docs.resolve("README.md"));
        List<String> missing = new ArrayList<>();
        try (Stream<Path> pages = Files.list(docs)) {
            for (Path p : pages.filter(x -> x.toString().endsWith(".md")).sorted().toList()) {
                String name = p.getFileName().toString();
                if (!name.equals("README.md") && !index.contains("](" + name + ")")) {
                    missing.add(name);
                }
            }
        }
        assertEquals(List.of(), missing, "pages of docs/ the index (docs/README.md) does not link");
    }

    @Test
    void everyPolicyModuleIsDocumentedInPoliciesOrItsOwnReadme() throws IOException {
        Path root = root();
        String policies = read(root.resolve("docs/policies.md"));
        List<String> undocumented = new ArrayList<>();
        Matcher m = Pattern.compile("<module>bundles/granary\\.policy\\.([a-z0-9-]+)</module>").matcher(read(root.resolve("pom.xml")));
        int modules = 0;
        while (m.find()) {
            modules++;
            String name = m.group(1);
            boolean section = policies.lines().anyMatch(l -> l.equals("## " + name));
            Path readme = root.resolve("bundles/granary.policy." + name + "/README.md");
            if (!section && !(Files.isRegularFile(readme) && read(readme).lines().anyMatch(l -> l.equals("# " + name)))) {
                undocumented.add(name);
            }
        }
        assertTrue(modules >= 8, "policy modules: " + modules);
        assertEquals(List.of(), undocumented, "policies with neither a section '## <name>' in docs/policies.md nor a README.md"
                + " headed '# <name>' in their folder");
    }

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
