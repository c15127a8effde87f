package granary.conformance;

import granary.protocol.link.Loop;
import granary.protocol.link.Transport;
import java.io.IOException;
import java.util.function.BiConsumer;

/**
 * How a simulated process's calls reach a server of the world: over the {@link Wire} (which drops,
 * delays, duplicates and cuts), to the master or an agent's plan endpoint, and back. A call with no
 * answer within its timeout fails on the caller's loop, as an HTTP client's does; a server that is
 * not there refuses the connection.
 */
final class SimTransport implements Transport {

    private final World world;
    private final String machine;

    /** @param machine where the calling process runs (its cut is the machine's) */
    SimTransport(World world, String machine) {
        this.world = world;
        this.machine = machine;
    }

    @Override
    public void exchange(Call call, Loop loop, BiConsumer<Response, IOException> done) {
        String host = call.uri().getHost();
        String server = world.machineOf(host);
        boolean[] over = {false};
        Loop.Timer timeout = loop.schedule(call.timeout().toMillis(), () -> {
            if (!over[0]) {
                over[0] = true;
                done.accept(null, new IOException("request timed out after " + call.timeout().toMillis() + " ms"));
            }
        });
        BiConsumer<Response, IOException> answer = (r, io) -> world.wire.send(server, machine, () -> loop.execute(() -> {
            if (!over[0]) {
                over[0] = true;
                timeout.cancel();
                done.accept(r, io);
            }
        }));
        world.wire.send(machine, server, () -> world.serve(host, call, machine, answer));
    }
}
