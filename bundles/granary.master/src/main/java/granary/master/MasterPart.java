package granary.master;

import granary.api.event.InputEvent;
import granary.api.model.Clock;
import granary.api.model.InvalidRequestException;
import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.api.model.UnitSpec;
import granary.api.spi.EngineView;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * One part of the master's logic (its handlers of agents, of job masters, its recovery, restarts,
 * timeouts): code over the shared {@link MasterBook} and the engine, run only in turns of the
 * master's loop, on the engine's thread (docs/architecture.md, "The master's loop"). A part calls
 * only parts below it; {@link ProtocolMaster} at the top receives messages and dispatches them.
 */
abstract class MasterPart {

    final MasterBook book;
    final MasterOptions options;
    final Clock clock;
    final Map<String, AgentPeer> agents;
    final Map<String, JobMasterPeer> jobMasters;
    final Map<String, String> owners;
    final Map<String, String> formerOwners;
    final Map<UnitId, UnitSpec> unitSpecs;
    final Restarts restarts;

    MasterPart(MasterBook book) {
        this.book = book;
        this.options = book.options;
        this.clock = book.clock;
        this.agents = book.agents;
        this.jobMasters = book.jobMasters;
        this.owners = book.owners;
        this.formerOwners = book.formerOwners;
        this.unitSpecs = book.unitSpecs;
        this.restarts = book.restarts;
    }

    /** Applies {@code event} at once (a turn of the loop runs on the engine's thread). */
    final void apply(InputEvent event) {
        book.engine.apply(event);
    }

    /** Reads the engine at once (a turn of the loop runs on the engine's thread). */
    final <T> T query(Function<? super EngineView, T> q) {
        return q.apply(book.engine.view());
    }

    /** How many of {@code j}'s jobs still run: in the engine, or kept out of it for agents that have not returned. */
    final int running(JobMasterPeer j) {
        return query(v -> (int) j.jobs.stream().filter(id -> v.job(id) != null || book.recovered.deferredJob(id) != null).count());
    }

    final JobMasterPeer jobMasterOf(String job) {
        return book.jobMasterOf(job);
    }

    final void deliver(Peer peer) {
        book.deliver(peer);
    }

    /** Runs {@code r}, adding the problems of a refusal to {@code problems}. */
    static void collect(List<Problem> problems, Runnable r) {
        try {
            r.run();
        } catch (InvalidRequestException ex) {
            problems.addAll(ex.problems());
        }
    }

    static <T> void addIfNotNull(List<T> list, T t) {
        if (t != null) {
            list.add(t);
        }
    }

    static Ack refuse(Envelope e, Problem... problems) {
        return Ack.refused(e.sequence(), List.of(problems));
    }
}
