package granary.conformance;

import granary.agent.AgentConfig;
import granary.agent.AgentRole;
import granary.api.model.Resources;
import granary.protocol.link.Endpoint;
import granary.protocol.link.Reply;
import granary.protocol.link.Transport;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.BiConsumer;

/**
 * One incarnation of a node's agent in the world: the shipped {@link AgentRole} on a {@link SimLoop},
 * talking over a {@link SimTransport}, its checkpoint on the node's {@link SimDisk}, its workers in
 * the node's {@link SimOs}. Its plan endpoint has an address of its own, as a restarted agent on a
 * new port has.
 */
final class AgentProcess {

    final String node;
    final URI endpoint;
    final SimLoop loop;
    final AgentRole role;
    private Endpoint desk;
    boolean gaveUp;

    AgentProcess(World world, SimNode n, int life) {
        this.node = n.name;
        this.endpoint = URI.create("http://" + n.name + "-" + life + ".agent.sim");
        this.loop = new SimLoop(world, "agent " + n.name + "#" + life);
        AgentConfig c = AgentConfig.of(World.MASTER_URL, n.name, n.capacity, world.tokens.issue(
                        new granary.protocol.Sender(granary.protocol.Role.AGENT, n.name)), Path.of("/sim", n.name))
                .withHeartbeat(Duration.ofSeconds(1)).withPollWait(Duration.ZERO).withPollPause(Duration.ofMillis(100))
                .withStopGrace(Duration.ofSeconds(1)).withRequestTimeout(Duration.ofSeconds(1));
        this.role = new AgentRole(c, loop, new SimTransport(world, n.name), n.disk, n.os.launcher(loop),
                line -> world.trace("agent " + n.name + "#" + life, line), (code, why) -> {
                    gaveUp = true;
                    world.agentGaveUp(this, code, why);
                });
    }

    void start(World world) {
        loop.execute(() -> {
            try {
                desk = role.load();
            } catch (IOException ex) {
                // as the process does: it exits (code 1) and its supervisor starts it again
                gaveUp = true;
                world.agentGaveUp(this, 1, "cannot use its work dir: " + ex.getMessage());
                return;
            }
            role.start(endpoint);
        });
    }

    /** A job master's call to the plan endpoint, taken on the agent's loop (it waits while the agent is paused). */
    void serve(Transport.Call call, String from, BiConsumer<Transport.Response, IOException> answer) {
        loop.execute(() -> {
            if (desk == null) {
                answer.accept(null, new IOException("connection refused (the agent is starting)"));
                return;
            }
            Reply r = desk.post(call.authorization(), call.body(), "sim:" + from);
            answer.accept(new Transport.Response(r.status(), r.body(), null), null);
        });
    }

    boolean alive() {
        return loop.alive() && !gaveUp;
    }
}
