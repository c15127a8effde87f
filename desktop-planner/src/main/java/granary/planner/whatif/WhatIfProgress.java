package granary.planner.whatif;

/** Told how far a what-if is, from the thread that runs it. */
@FunctionalInterface
public interface WhatIfProgress {

    WhatIfProgress NONE = (fraction, message) -> { };

    /**
     * @param fraction 0..1, never less than the one before
     * @param message  one line: what is being done
     */
    void update(double fraction, String message);
}
