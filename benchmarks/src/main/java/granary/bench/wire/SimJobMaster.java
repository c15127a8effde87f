package granary.bench.wire;

import granary.api.model.JobSpec;
import granary.api.model.UnitSpec;
import granary.protocol.Envelope;
import granary.protocol.Hint;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import java.net.http.HttpClient;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A simulated job master: one full request of one job with one unit of {@code desired} slots of
 * 100 cpu / 1 GiB, then an open inbox poll counting the hints, their placements and exits.
 */
final class SimJobMaster extends Peer {

    private final String job;
    private final int desired;
    final CompletableFuture<Void> accepted = new CompletableFuture<>();

    SimJobMaster(WireLoad.Run run, String id, int desired, HttpClient http) {
        super(run, new Sender(Role.JOB_MASTER, id), http);
        this.job = id + "-job";
        this.desired = desired;
    }

    void start() {
        UnitSpec u = UnitSpec.builder("work").slot(100, 1024).desired(desired).build();
        JobSpec j = new JobSpec(job, JobSpec.DEFAULT_GROUP, "bench", 0, false, List.of(u));
        post(new Request(true, List.of(j), List.of(), List.of(), List.of()), ack -> {
            if (ack != null && !ack.isRefusal()) {
                poll();
                accepted.complete(null);
            } else {
                accepted.completeExceptionally(new IllegalStateException(job + " was refused: " + ack));
            }
        });
    }

    @Override
    void inbox(Envelope e, long nanos) {
        if (e.message() instanceof Hint h) {
            run.hints.increment();
            run.hintPlacements.add(h.placements().size());
            run.hintExits.add(h.exits().size());
        }
    }
}
