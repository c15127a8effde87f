package granary.planner.app;

import javafx.application.Application;

/**
 * Starts the planner. A class of its own, not the {@link PlannerApp} subclass of Application: JavaFX
 * on the class path (the shaded jar) refuses to launch an Application class named as the main class.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        Application.launch(PlannerApp.class, args);
    }
}
