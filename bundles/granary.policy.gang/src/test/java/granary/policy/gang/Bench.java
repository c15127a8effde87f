package granary.policy.gang;

import java.util.List;

import granary.api.model.ManualClock;
import granary.api.spi.Policy;
import granary.policy.fifo.FifoPolicy;
import granary.testkit.TestEngine;

/** The kit's strict test engine with FIFO and a gang placement selected, from time 0. */
final class Bench extends TestEngine {

    Bench(Policy gang) {
        super(new ManualClock(0), List.of("fifo", "gang"), List.of("fifo"), new FifoPolicy(), gang);
    }

    Bench() {
        this(new GangPolicy());
    }

    @Override
    public Bench node(String name, String room, long cpu, long mem) {
        super.node(name, room, cpu, mem);
        return this;
    }
}
