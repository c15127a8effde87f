package granary.sim.trace;

import java.util.ArrayList;
import java.util.List;

import granary.sim.workload.ReadReport;

/**
 * Runs a reader's row handler over every data line and decides what a bad row does:
 * {@code badRows=fail} (the default) collects up to {@value #MAX_PROBLEMS} problems and then fails
 * with all of them; {@code badRows=skip} counts each bad row in the report (reason {@code bad row})
 * with its first examples, and goes on.
 */
public final class RowLoop {

    /** How a row is read. */
    @FunctionalInterface
    public interface Handler {
        void row(String line);
    }

    static final int MAX_PROBLEMS = 20;

    private final boolean skipBad;
    private final ReadReport report;
    private final List<TraceException.Problem> problems = new ArrayList<>();

    public RowLoop(boolean skipBad, ReadReport report) {
        this.skipBad = skipBad;
        this.report = report;
    }

    /** Handles one line; a bad one is recorded or counted as configured. */
    public void handle(TextSource in, String line, Handler h) {
        try {
            h.row(line);
        } catch (TraceException e) {
            for (TraceException.Problem p : e.problems()) {
                if (skipBad) {
                    report.skip("bad row", p.toString());
                } else {
                    problems.add(p);
                }
            }
            if (problems.size() >= MAX_PROBLEMS) {
                fail(in);
            }
        }
    }

    /** Throws if problems were recorded. */
    public void done(TextSource in) {
        if (!problems.isEmpty()) {
            fail(in);
        }
    }

    /** Adds a problem found after the rows were read (e.g. a dependency on a missing task). */
    public void problem(TraceException.Problem p) {
        if (skipBad) {
            report.skip("bad row", p.toString());
        } else {
            problems.add(p);
        }
    }

    private void fail(TextSource in) {
        List<TraceException.Problem> all = new ArrayList<>(problems);
        if (all.size() >= MAX_PROBLEMS) {
            all.add(new TraceException.Problem(in.name(), 0, 0, "stopped after " + MAX_PROBLEMS
                    + " problems; fix these, or read with badRows=skip to count and skip bad rows"));
        }
        throw new TraceException(all);
    }
}
