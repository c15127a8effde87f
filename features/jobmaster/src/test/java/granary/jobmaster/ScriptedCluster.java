package granary.jobmaster;

import granary.api.model.Problem;
import granary.protocol.Ack;
import granary.protocol.Envelope;
import granary.protocol.Hint;
import granary.protocol.Plan;
import granary.protocol.Request;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;
import granary.protocol.link.Loop;
import granary.protocol.link.Transport;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Not the thing under test: a master and one agent ({@value #AGENT}) reached through the job
 * master's {@link Transport}, their answers handed back as tasks of the job master's own (manual)
 * loop, so that a test decides what the master says and in which order. The master acknowledges
 * every request (unless {@link #judge} refuses it), keeps them, and serves the hints a test puts in
 * its inbox; {@link #holdNext} keeps the answer to one request back until {@link #release}. The
 * agent acknowledges every plan and keeps its launches; nothing runs.
 */
final class ScriptedCluster implements Transport {

    static final String MASTER = "http://master.test";
    static final String AGENT = "http://n1.test";

    private final WireCodec masterCodec = new WireCodec(Role.MASTER);
    private final WireCodec agentCodec = new WireCodec(Role.AGENT);
    private final Sender master = new Sender(Role.MASTER, "m");
    private final List<Request> requests = new ArrayList<>();
    private final List<Plan.Launch> launches = new ArrayList<>();
    private final List<Hint> inbox = new ArrayList<>();
    private Function<Request, List<Problem>> judge = r -> List.of();
    private Predicate<Request> hold = r -> false;
    private Request held;
    private Runnable heldAnswer;

    @Override
    public void exchange(Call call, Loop loop, BiConsumer<Response, IOException> done) {
        String base = call.uri().getScheme() + "://" + call.uri().getAuthority();
        if (base.equals(AGENT)) {
            Envelope e = agentCodec.decode(call.body(), "job master");
            launches.addAll(((Plan) e.message()).launches());
            Response r = new Response(200, agentCodec.encode(Envelope.of(new Sender(Role.AGENT, "n1"), 1, 0, Ack.applied(e.sequence()))), null);
            loop.execute(() -> done.accept(r, null));
            return;
        }
        if (call.method().equals("GET")) {
            long after = 0;
            for (String pair : call.uri().getRawQuery().split("&")) {
                if (pair.startsWith("after=")) {
                    after = Long.parseLong(pair.substring(6));
                }
            }
            Response r = after < inbox.size()
                    ? new Response(200, masterCodec.encode(Envelope.of(master, 1, after + 1, inbox.get((int) after))), null)
                    : new Response(204, new byte[0], null);
            loop.execute(() -> done.accept(r, null));
            return;
        }
        Envelope e = masterCodec.decode(call.body(), "job master");
        Request q = (Request) e.message();
        requests.add(q);
        if (held == null && hold.test(q)) {
            held = q;
            heldAnswer = () -> answer(loop, done, e, judge.apply(q));
            return;
        }
        answer(loop, done, e, judge.apply(q));
    }

    private void answer(Loop loop, BiConsumer<Response, IOException> done, Envelope e, List<Problem> problems) {
        Ack a = problems.isEmpty() ? Ack.applied(e.sequence()) : Ack.refused(e.sequence(), problems);
        Response r = new Response(problems.isEmpty() ? 200 : 400, masterCodec.encode(Envelope.of(master, 1, 0, a)), null);
        loop.execute(() -> done.accept(r, null));
    }

    /** Puts a hint in the master's inbox, with a plan pass for each node it places slots on, as a master gives them. */
    void hint(Hint h) {
        List<Hint.Pass> passes = new java.util.ArrayList<>(h.passes());
        h.placements().stream().map(Hint.Placement::node).distinct().forEach(n -> passes.add(new Hint.Pass(n, "gp1.scripted-" + n)));
        inbox.add(new Hint(h.placements(), h.exits(), h.nodes(), h.through(), passes));
    }

    /** From now on, refuses what {@code j} finds problems with. */
    void judge(Function<Request, List<Problem>> j) {
        judge = j;
    }

    /** Keeps back the answer to the next request {@code which} selects, until {@link #release}. */
    void holdNext(Predicate<Request> which) {
        hold = which;
    }

    /** The request whose answer is held, or null. */
    Request held() {
        return held;
    }

    /** Answers the held request (as the judge finds it now). */
    void release() {
        Runnable a = heldAnswer;
        held = null;
        heldAnswer = null;
        hold = r -> false;
        a.run();
    }

    List<Request> requests() {
        return List.copyOf(requests);
    }

    List<Plan.Launch> launches() {
        return List.copyOf(launches);
    }
}
