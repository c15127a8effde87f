package granary.sim.cli;

import java.util.List;

import granary.sim.run.ClassPathPolicies;
import granary.sim.run.Progress;

/**
 * {@code java -jar granary-sim.jar ...}: replays a trace under one or more policy sets with the
 * policies of the class path. The summary goes to standard output, errors to standard error, a
 * progress bar to standard error when it is a terminal. Exit codes: 0 done, 1 failed, 2 bad
 * arguments or input files.
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        Progress progress = System.console() != null ? new TerminalProgress(System.err) : Progress.NONE;
        Runner.Outcome o;
        try {
            o = Runner.run(List.of(args), new ClassPathPolicies(), progress);
        } catch (RuntimeException e) {
            progress.done();
            System.err.println("Error: the replay failed: " + e);
            e.printStackTrace(System.err);
            System.exit(1);
            return;
        }
        if (o.exit() == 0) {
            System.out.print(o.text());
            System.out.flush();
        } else {
            System.err.println("Error: " + o.text());
            System.err.println("Run with --help for usage.");
        }
        System.exit(o.exit());
    }
}
