package granary.api.spi;

import granary.api.spi.ReasonCode;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The sentences of a {@link JobWhy}, from the plain values alone (the engine's tests build them from a real engine). */
class JobWhyTest {
    /** A policy's own reason code, as a quota policy declares it. */
    static final ReasonCode QUOTA = ReasonCode.of("QUOTA", "limit reached",
            "It gets more when work in {subject} releases slots, or when that limit is raised.");
    /** A policy's own reason code, as a reservation policy declares it. */
    static final ReasonCode LOCKED = ReasonCode.of("LOCKED", "node locked", "The nodes with room are locked for another"
            + " job by a reservation; they open when that job has started or the reservation ends.");


    private static ReasonTally tally(ReasonCode code, long count, String subject, String message, long at) {
        return new ReasonTally(code, count, Reason.of(code, subject, message), at);
    }

    private static JobWhy waiting(List<ReasonTally> reasons, ReasonCode latest) {
        return new JobWhy("wc", "root.a", JobWhy.State.WAITING, 100_000, List.of(
                new JobWhy.UnitWhy("wc/map", 10, 4, 6, 88_000, reasons, latest),
                new JobWhy.UnitWhy("wc/reduce", 2, 2, 0, -1, List.of(), null)));
    }

    @Test
    void theMostFrequentReasonTheLatestAndTheOthersEachInASentence() {
        List<ReasonTally> reasons = List.of(
                tally(QUOTA, 37, "group root.a", "max 40 slots reached", 99_800),
                tally(ReasonCode.NO_FIT, 5, "unit wc/map", "no node has enough free memory for one slot", 99_990),
                tally(ReasonCode.BLACKLISTED, 2, "node n3", "on the global blacklist", 90_000),
                tally(ReasonCode.LABELS, 1, "node n4", "labels {} lack {gpu=a100}", 40_000),
                tally(LOCKED, 1, "node n5", "locked for job x", 30_000),
                tally(ReasonCode.MAX_PER_NODE, 1, "node n6", "max 2 slots per node reached", 20_000));
        assertEquals(List.of(
                "Job wc in group root.a waits for 6 of its 12 slots (6 granted).",
                "Unit wc/map has been waiting for 6 of 10 slots (4 granted) for 12 s.",
                "Most often (37 times, last 0.2 s ago): limit reached (group root.a): max 40 slots reached.",
                "Most recently (5 times, last just now): no node has enough free memory for one slot.",
                "Also (twice, last 10 s ago): blacklisted (node n3): on the global blacklist.",
                "Also (once, last 1 min ago): labels do not match (node n4): labels {} lack {gpu=a100}.",
                "Also (once, last 1 min 10 s ago): node locked (node n5): locked for job x.",
                "And 1 other reason.",
                "It is placed when a node frees enough room (slots released, a node added or enlarged); a smaller slot"
                        + " would fit sooner."), waiting(reasons, ReasonCode.NO_FIT).sentences());
    }

    @Test
    void aUnitWithoutReasonsYetSaysTheEngineHasNotTriedIt() {
        List<String> s = waiting(List.of(), null).sentences();
        assertTrue(s.get(2).startsWith("The engine has not recorded why yet"), s.toString());
    }

    @Test
    void placedAndEndedJobsAreOneShortStory() {
        JobWhy placed = new JobWhy("wc", "root.a", JobWhy.State.PLACED, 0,
                List.of(new JobWhy.UnitWhy("wc/map", 10, 10, 0, -1, List.of(), null)));
        assertEquals(List.of("Job wc is fully placed: nothing waits.", "It holds 10 slots in 1 unit."), placed.sentences());
        assertEquals(List.of("Job wc has finished or was cancelled."),
                new JobWhy("wc", "root.a", JobWhy.State.ENDED, 0, List.of()).sentences());
    }

    @Test
    void textFromInputsCannotForgeALineOrAnEscape() {
        List<ReasonTally> reasons = List.of(tally(ReasonCode.OTHER, 1, "policy x", "a\nforged line \u001b[31m", -1));
        List<String> s = waiting(reasons, ReasonCode.OTHER).sentences();
        assertTrue(s.contains("Most often (once): other (policy x): a\\nforged line \\u001B[31m."), s.toString());
        assertTrue(s.stream().noneMatch(x -> x.contains("\n") || x.contains("\u001b")), s.toString());
    }

    @Test
    void durationsReadAsAPersonWouldSayThem() {
        assertEquals("0.2 s", WhySentences.duration(200));
        assertEquals("12 s", WhySentences.duration(12_400));
        assertEquals("3 min 20 s", WhySentences.duration(200_000));
        assertEquals("2 h", WhySentences.duration(7_200_000));
        assertEquals("2 h 5 min", WhySentences.duration(7_500_000));
        assertEquals("3 d 4 h", WhySentences.duration(3 * 86_400_000L + 4 * 3_600_000L));
        assertEquals("0.0 s", WhySentences.duration(-5));
    }

    @Test
    void aTallyIsCheckedWhole() {
        Reason quota = Reason.of(QUOTA, "group g", "max");
        assertThrows(IllegalArgumentException.class, () -> new ReasonTally(QUOTA, 0, quota, 1));
        assertThrows(IllegalArgumentException.class, () -> new ReasonTally(ReasonCode.NO_FIT, 1, quota, 1));
    }
}
