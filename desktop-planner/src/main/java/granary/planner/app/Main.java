package granary.planner.app;

import java.util.List;

import javafx.application.Application;

/**
 * Starts the planner. A class of its own, not the {@link PlannerApp} subclass of Application: JavaFX
 * on the class path (the shaded jar) refuses to launch an Application class named as the main class.
 * The arguments are checked before any window opens: a wrong one exits 2 with what is wrong.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        if (List.of(args).contains("--help")) {
            System.out.println(PlannerOptions.USAGE);
            return;
        }
        try {
            PlannerOptions.parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("planner: " + e.getMessage());
            System.exit(2);
        }
        Application.launch(PlannerApp.class, args);
    }
}
