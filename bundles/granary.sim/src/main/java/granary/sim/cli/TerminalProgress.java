package granary.sim.cli;

import java.io.PrintStream;
import java.util.Locale;

import granary.sim.run.Progress;

/** A one-line progress bar on standard error, redrawn in place ({@code \r}); only used on a terminal. */
final class TerminalProgress implements Progress {

    private static final int WIDTH = 30;

    private final PrintStream err;
    private int lastLength;

    TerminalProgress(PrintStream err) {
        this.err = err;
    }

    @Override
    public void update(String label, int index, int sets, long simMs, long spanMs, long arrived, long jobs) {
        double f = spanMs <= 0 ? 1 : Math.min(1, (double) simMs / spanMs);
        int filled = (int) Math.round(f * WIDTH);
        String line = String.format(Locale.ROOT, "[%s%s] %3.0f%%  set %d/%d %s  t=%.1f h  jobs %,d/%,d",
                "#".repeat(filled), ".".repeat(WIDTH - filled), f * 100, index + 1, sets, label, simMs / 3_600_000.0, arrived, jobs);
        err.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
        err.flush();
        lastLength = line.length();
    }

    @Override
    public void done() {
        if (lastLength > 0) {
            err.print("\r" + " ".repeat(lastLength) + "\r");
            err.flush();
        }
    }
}
