package granary.planner.app;

import javafx.application.Application;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.stage.Stage;

/** The planner's window (docs/planner.md). */
public final class PlannerApp extends Application {

    @Override
    public void start(Stage stage) {
        stage.setTitle("Granary planner");
        stage.setScene(new Scene(new Label("Granary planner"), 1200, 800));
        stage.show();
    }
}
