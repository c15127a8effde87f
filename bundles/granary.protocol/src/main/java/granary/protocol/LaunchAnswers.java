package granary.protocol;

import granary.api.model.Problem;
import granary.api.model.UnitId;
import java.util.List;
import java.util.OptionalInt;

/**
 * What an agent says of a launch it does not start because of the slot's history, and how a job
 * master reads it back (docs/protocol.md, "Plans"). A job master that is not sure whether a worker
 * still runs sends its launch again: the agent answers that the slot {@link #running is already
 * running}, that it {@link #endedWith already ended} (with the code it ended with), or starts it (the
 * agent never heard of it). A slot number is one worker's: a run again takes a new slot.
 */
public final class LaunchAnswers {

    private static final String RUNNING = " is already running";
    private static final String PLANNED = " is already planned and waiting for its cap";
    private static final String NOT_STARTED = " was not started: ";
    private static final String ENDED = " already ended with exit code ";
    private static final String REPORTED = "; a master acknowledged its exit";

    private LaunchAnswers() {
    }

    /** The problem for a launch of a slot whose worker runs. */
    public static Problem running(String subject, String field, UnitId unit, int slot) {
        return Problem.of(subject, field, "slot " + slot + " of unit " + unit + RUNNING);
    }

    /**
     * The problem for a launch of a slot whose worker ended {@code agoMillis} ago with {@code code};
     * {@code reported} if a master acknowledged the heartbeat carrying the exit (it released the slot
     * then, or — if it died before its cap said so — the slot stays held and free for other work).
     */
    public static Problem ended(String subject, String field, UnitId unit, int slot, int code, long agoMillis,
            boolean reported) {
        return new Problem(subject, field, "slot " + slot + " of unit " + unit + ENDED + code + " " + (agoMillis / 1000)
                + " s ago" + (reported ? REPORTED : "; its exit is on its way to the master")
                + "; it is not started again (a new run takes a new slot)", null, (long) code);
    }

    /** True if one of {@code problems} says a slot's worker ended and a master acknowledged its exit. */
    public static boolean endReported(List<Problem> problems) {
        return problems.stream().anyMatch(p -> p.message() != null && p.message().contains(ENDED) && p.message().contains(REPORTED));
    }

    /** The problem for a launch of a slot the agent took already and keeps until its cap arrives. */
    public static Problem planned(String subject, String field, UnitId unit, int slot) {
        return Problem.of(subject, field, "slot " + slot + " of unit " + unit + PLANNED);
    }

    /**
     * The problem for a probe that could not start at once ({@link Plan.Launch#probe}): the worker does
     * not run here, and nothing of it is kept (a copy that waited for its cap is dropped).
     */
    public static Problem notStarted(String subject, String field, UnitId unit, int slot, String why) {
        return Problem.of(subject, field, "slot " + slot + " of unit " + unit + NOT_STARTED + why
                + " (a probe starts at once or not at all; nothing of it is kept)");
    }

    /** True if one of {@code problems} says a probe's worker was not started and nothing of it is kept. */
    public static boolean notStarted(List<Problem> problems) {
        return problems.stream().anyMatch(p -> p.message() != null && p.message().contains(NOT_STARTED));
    }

    /**
     * True if one of {@code problems} says the slot's worker is already running, or taken and
     * waiting for its cap (it starts when the cap arrives): either way the agent has the launch.
     */
    public static boolean running(List<Problem> problems) {
        return problems.stream().anyMatch(p -> p.message() != null && (p.message().contains(RUNNING) || p.message().contains(PLANNED)));
    }

    /** The exit code one of {@code problems} says the slot's worker ended with, if one says so. */
    public static OptionalInt endedWith(List<Problem> problems) {
        for (Problem p : problems) {
            if (p.message() != null && p.message().contains(ENDED) && p.value() != null) {
                return OptionalInt.of(p.value().intValue());
            }
        }
        return OptionalInt.empty();
    }
}
