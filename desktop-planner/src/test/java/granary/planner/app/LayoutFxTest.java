package granary.planner.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import javafx.geometry.Bounds;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.ComboBoxBase;
import javafx.scene.control.Labeled;
import javafx.scene.control.Spinner;
import javafx.scene.control.TabPane;
import javafx.scene.control.TextField;
import javafx.scene.text.Text;
import javafx.stage.Stage;
import javafx.stage.Window;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testfx.api.FxRobot;
import org.testfx.api.FxToolkit;
import org.testfx.util.WaitForAsyncUtils;

import granary.planner.Png;

/**
 * The whole window at 1024×768, the smallest size the planner is made for (issue 26, "a window that
 * fits a laptop"): on every tab, every button, field and choice shows whole — no text cut to "…", no
 * control squeezed below its preferred width, nothing past the window's right edge — even with a long
 * error in a status line. Each tab is written to target/layout-1024-TAB.png to be looked at.
 */
class LayoutFxTest {

    static PlannerApp app;
    static final FxRobot robot = new FxRobot();

    @BeforeAll
    static void start() throws Exception {
        FxToolkit.registerPrimaryStage();
        app = (PlannerApp) FxToolkit.setupApplication(PlannerApp.class, "--table=" + Path.of("examples/draft-table.json").toAbsolutePath(),
                "--worker-spans=default:8000,0-9:15000,20-24:6000");
    }

    @AfterAll
    static void stop() throws Exception {
        FxToolkit.cleanupApplication(app);
        FxToolkit.cleanupStages();
    }

    private static <T> T fx(Callable<T> c) throws Exception {
        return WaitForAsyncUtils.asyncFx(c).get(30, TimeUnit.SECONDS);
    }

    private static Stage stage() {
        return (Stage) Window.getWindows().stream().filter(Window::isShowing).filter(w -> w instanceof Stage).findFirst().orElseThrow();
    }

    /** What is cut or squeezed on the showing tab, as "id or text: why". */
    private static List<String> cut(Node n, double windowWidth) {
        List<String> out = new ArrayList<>();
        walk(n, windowWidth, out);
        return out;
    }

    private static void walk(Node n, double windowWidth, List<String> out) {
        if (!n.isVisible() || !n.isManaged() && !(n instanceof Parent)) {
            return;
        }
        String name = n.getId() != null ? "#" + n.getId() : n.getClass().getSimpleName();
        boolean control = n instanceof Button || n instanceof TextField || n instanceof ChoiceBox || n instanceof ComboBoxBase
                || n instanceof Spinner;
        if (control) {
            Bounds b = n.localToScene(n.getBoundsInLocal());
            if (b.getMaxX() > windowWidth + 1) {
                out.add(name + ": past the right edge (" + Math.round(b.getMaxX()) + " > " + windowWidth + ")");
            }
            double pref = ((javafx.scene.layout.Region) n).prefWidth(-1);
            if (n.getLayoutBounds().getWidth() + 1 < Math.min(pref, 160)) {
                out.add(name + ": squeezed to " + Math.round(n.getLayoutBounds().getWidth()) + " of " + Math.round(pref) + " px");
            }
        }
        if (n instanceof Button b && b.getText() != null && !b.getText().isEmpty()) {
            String shown = b.lookupAll(".text").stream().filter(t -> t instanceof Text).map(t -> ((Text) t).getText()).findFirst().orElse("");
            if (!shown.equals(b.getText())) {
                out.add(name + " '" + b.getText() + "' shows '" + shown + "'");
            }
        }
        if (n.getStyleClass().contains("tool-bar-overflow-button") && n.isVisible()) {
            out.add("a tool bar hides controls behind its overflow button");
        }
        // a spinner's, a combo box's or a field's own insides are the control's business
        if (n instanceof Parent p && !(n instanceof Labeled) && !control) {
            for (Node c : p.getChildrenUnmodifiable()) {
                walk(c, windowWidth, out);
            }
        }
    }

    @Test
    void everyTabFitsAt1024x768() throws Exception {
        fx(() -> {
            Stage s = stage();
            s.setWidth(1024);
            s.setHeight(768);
            return null;
        });
        WaitForAsyncUtils.waitForFxEvents();
        // a long error in the connection bar must not squeeze the address (nothing listens on port 1)
        fx(() -> {
            app.connection.urlProperty().set("http://127.0.0.1:1");
            app.connection.connect();
            return null;
        });
        WaitForAsyncUtils.waitFor(30, TimeUnit.SECONDS, () -> fx(() -> !app.connection.busyProperty().get()));
        assertTrue(fx(() -> app.connection.stateProperty().get()).contains("is not reachable"), fx(() -> app.connection.stateProperty().get()));
        // a long error in the what-if's status line must not push Run and Cancel away
        fx(() -> {
            app.whatIf.traceProperty().set(Path.of("/no/such/directory/with/a/very/long/name/that/goes/on/and/on/batch_task.csv.gz"));
            app.whatIf.run();
            return null;
        });
        List<String> all = new ArrayList<>();
        for (String tab : List.of("table", "whatif", "push", "live")) {
            fx(() -> {
                TabPane tabs = (TabPane) robot.lookup(".tab-pane").query();
                tabs.getSelectionModel().select(tabs.getTabs().stream().filter(t -> (tab + "Tab").equals(t.getId())).findFirst().orElseThrow());
                return null;
            });
            WaitForAsyncUtils.waitForFxEvents();
            fx(() -> {
                stage().getScene().getRoot().layout();
                return null;
            });
            WaitForAsyncUtils.waitForFxEvents();
            double width = fx(() -> stage().getScene().getWidth());
            assertEquals(1024, width, 16, "the window is 1024 wide");
            List<String> cut = fx(() -> cut(stage().getScene().getRoot(), width));
            cut.forEach(c -> all.add(tab + ": " + c));
            Png.write(fx(() -> stage().getScene().snapshot(null)), Path.of("target/layout-1024-" + tab + ".png"));
        }
        assertTrue(all.isEmpty(), String.join("\n", all));
        assertTrue(fx(() -> app.whatIf.statusProperty().get()).startsWith("cannot run: "));
    }
}
