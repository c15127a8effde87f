package granary.planner;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The planner's layers (docs/planner.md, "How it is built"), checked on the compiled classes:
 * <ul>
 * <li>a view ({@code *View}, and the shell in {@code granary.planner.app}) may use all of JavaFX;</li>
 * <li>a view model ({@code *ViewModel}) and the other classes of a feature may use JavaFX's observable
 *     properties and collections ({@code javafx.beans}, {@code javafx.collections}) and nothing else of
 *     it: no node, no stage, no {@code Platform} (they are handed an executor for the UI thread);</li>
 * <li>services ({@code *Service}, {@code *Client}) and the {@code master} and {@code model} packages use
 *     no JavaFX at all;</li>
 * <li>a view talks to its view model, never to a service or the master client.</li>
 * </ul>
 * A class's nested and anonymous classes count as the class.
 */
class LayeringTest {

    private static final Path CLASSES = Path.of("target/classes/granary/planner");

    @org.junit.jupiter.api.io.TempDir
    Path tmp;

    private enum Layer { VIEW, VIEW_MODEL, SERVICE }

    private static String outer(Path root, Path classFile) {
        String rel = root.relativize(classFile).toString().replace('\\', '/');
        String name = rel.substring(0, rel.length() - ".class".length());
        int dollar = name.indexOf('$');
        return dollar < 0 ? name : name.substring(0, dollar);
    }

    private static Layer layer(String outer) {
        String simple = outer.substring(outer.lastIndexOf('/') + 1);
        if (outer.startsWith("app/") || simple.endsWith("View")) {
            return Layer.VIEW;
        }
        if (outer.startsWith("master/") || outer.contains("/model/") || simple.endsWith("Service") || simple.endsWith("Client")) {
            return Layer.SERVICE;
        }
        return Layer.VIEW_MODEL;
    }

    /** The class's constant pool as text: class names and descriptors appear in it as written. */
    private static String constants(Path f) {
        try {
            return new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void viewModelsHoldNoNodesServicesNoJavaFxAndViewsTalkToViewModels() throws IOException {
        assertTrue(Files.isDirectory(CLASSES), "compiled classes at " + CLASSES.toAbsolutePath());
        List<String> broken = new ArrayList<>();
        int checked = check(CLASSES, broken);
        assertTrue(checked > 10, "classes checked: " + checked);
        assertEquals(List.of(), broken);
    }

    /** The check itself, on classes compiled here that break each rule once. */
    @Test
    void theCheckFindsEachKindOfBreak() throws IOException {
        Path src = tmp.resolve("src/granary/planner/bad");
        Files.createDirectories(src);
        Files.writeString(src.resolve("BadViewModel.java"),
                "package granary.planner.bad; public class BadViewModel { javafx.scene.control.Label label; }");
        Files.writeString(src.resolve("BadService.java"),
                "package granary.planner.bad; public class BadService { javafx.beans.property.SimpleStringProperty p; }");
        Files.writeString(src.resolve("BadView.java"),
                "package granary.planner.bad; public class BadView { BadService s; }");
        Files.writeString(src.resolve("GoodViewModel.java"),
                "package granary.planner.bad; public class GoodViewModel { javafx.collections.ObservableList<String> l; }");
        Path out = tmp.resolve("classes");
        javax.tools.JavaCompiler javac = javax.tools.ToolProvider.getSystemJavaCompiler();
        try (Stream<Path> java = Files.list(src)) {
            List<String> args = new ArrayList<>(List.of("-d", out.toString(), "-cp", System.getProperty("java.class.path")));
            java.forEach(f -> args.add(f.toString()));
            assertEquals(0, javac.run(null, null, null, args.toArray(String[]::new)), "compiled");
        }
        List<String> broken = new ArrayList<>();
        assertEquals(4, check(out.resolve("granary/planner"), broken));
        assertEquals(List.of("bad/BadService (a service) refers to JavaFX",
                "bad/BadView (a view) refers to a service or the master client: go through its view model",
                "bad/BadViewModel (a view model) refers to javafx.scene."), broken.stream().sorted().toList());
    }

    /** Checks every class under {@code root} (a {@code granary/planner} folder); returns how many it read. */
    private static int check(Path root, List<String> broken) throws IOException {
        int checked = 0;
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                String outer = outer(root, f);
                String text = constants(f);
                checked++;
                switch (layer(outer)) {
                    case SERVICE -> {
                        if (text.contains("javafx/")) {
                            broken.add(outer + " (a service) refers to JavaFX");
                        }
                    }
                    case VIEW_MODEL -> {
                        for (String banned : List.of("javafx/scene/", "javafx/stage/", "javafx/application/", "javafx/animation/",
                                "javafx/embed/", "javafx/fxml/")) {
                            if (text.contains(banned)) {
                                broken.add(outer + " (a view model) refers to " + banned.replace('/', '.'));
                            }
                        }
                    }
                    case VIEW -> {
                        if (!outer.startsWith("app/") && (text.contains("granary/planner/master/") || text.matches("(?s).*granary/planner/\\w+/\\w+Service[;$].*"))) {
                            broken.add(outer + " (a view) refers to a service or the master client: go through its view model");
                        }
                    }
                    default -> throw new IllegalStateException();
                }
            }
        }
        return checked;
    }
}
