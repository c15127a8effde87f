package granary.api.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Why a job's slots wait: per unit what it waits for, since when, and its why-not-scheduled ledger
 * (docs/scheduling.md, "Why is my job not scheduled?"), and the same in plain sentences for an
 * operator ({@link #sentences()}: what {@code granary:why} prints). A plain value of records, lists,
 * strings and numbers, so a tool can serialise it as it is. Build it on the engine thread, where the
 * views are live: {@code JobWhy.of(view.job(id), view.now())}.
 *
 * @param job   the job's id
 * @param group the full name of the group (queue) it waits in
 * @param state whether slots wait, all are placed, or the job has ended
 * @param now   engine time of the read, in milliseconds: the "ago" of the sentences counts from here
 * @param units its live units, in request order
 */
public record JobWhy(String job, String group, State state, long now, List<UnitWhy> units) {

    /** Where the job stands. */
    public enum State {
        /** At least one live unit has slots waiting. */
        WAITING,
        /** Every live unit holds all the slots it wants. */
        PLACED,
        /** No unit wants or holds anything: the job finished or was cancelled. */
        ENDED
    }

    /**
     * One unit of the job.
     *
     * @param unit         the unit's id, {@code job/unit}
     * @param desired      slots it wants in all
     * @param granted      slots it holds
     * @param remaining    slots waiting: desired − granted
     * @param waitingSince engine time since when slots have waited without interruption; -1 if none wait
     * @param reasons      its ledger: the most frequent reason first (see {@link UnitView#reasons()})
     * @param latest       the code of the latest reason found, or null
     */
    public record UnitWhy(String unit, int desired, int granted, int remaining, long waitingSince,
                          List<ReasonTally> reasons, ReasonCode latest) {

        public UnitWhy {
            Objects.requireNonNull(unit, "unit");
            reasons = List.copyOf(reasons);
        }
    }

    public JobWhy {
        Objects.requireNonNull(job, "job");
        Objects.requireNonNull(state, "state");
        units = List.copyOf(units);
    }

    /**
     * The job as the engine sees it now.
     *
     * @param job a live view of the job (read on the engine thread); not null — the engine forgets a
     *            job once it has finished or was cancelled, so a caller that finds no job says so
     * @param now engine time ({@link EngineView#now()})
     */
    public static JobWhy of(JobView job, long now) {
        Objects.requireNonNull(job, "job");
        List<UnitWhy> units = new ArrayList<>();
        boolean waiting = false;
        boolean live = false;
        for (UnitView u : job.units()) {
            if (!u.live()) {
                continue;
            }
            live |= u.desired() > 0;
            waiting |= u.remaining() > 0;
            Reason latest = u.remaining() > 0 ? u.waitReason() : null;
            units.add(new UnitWhy(u.id().toString(), u.desired(), u.granted(), u.remaining(), u.waitingSince(),
                    u.remaining() > 0 ? u.reasons() : List.of(), latest == null ? null : latest.code()));
        }
        State state = waiting ? State.WAITING : live ? State.PLACED : State.ENDED;
        return new JobWhy(job.id(), job.group(), state, now, units);
    }

    /** Slots waiting over all units. */
    public long waitingSlots() {
        return units.stream().mapToLong(UnitWhy::remaining).sum();
    }

    /**
     * The same in plain English, one sentence per element: what waits, since when, why (the most
     * frequent reason, the latest if it differs, then the others), with the numbers where the reason
     * has them, and what would help where that is plain.
     */
    public List<String> sentences() {
        return WhySentences.of(this);
    }
}
