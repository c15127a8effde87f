package granary.bench;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import granary.api.model.Resources;
import granary.api.model.UnitId;
import granary.protocol.Cap;
import granary.protocol.Envelope;
import granary.protocol.Heartbeat;
import granary.protocol.Role;
import granary.protocol.Sender;
import granary.protocol.WireCodec;

/**
 * What reading one message off the wire costs (docs/protocol.md, "Wire format"): the bytes of an
 * envelope to the checked message, syntax and fields. {@code heartbeat}: an agent's heartbeat
 * reporting 16 workers started and 16 ended, as the master reads it; {@code cap}: a full cap of 200
 * grants, as an agent reads it after it registers.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class WireDecodeBench {

    @Param({"heartbeat", "cap"})
    public String message;

    private WireCodec reader;
    private byte[] bytes;

    @Setup
    public void setUp() {
        List<Heartbeat.Worker> started = new ArrayList<>();
        List<Heartbeat.Exit> exited = new ArrayList<>();
        List<Cap.Grant> grants = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            UnitId unit = UnitId.parse("job-" + i + "/map");
            if (i < 16) {
                started.add(new Heartbeat.Worker(unit, i));
                exited.add(new Heartbeat.Exit(unit, i + 16, 0, false));
            }
            grants.add(new Cap.Grant("jm-" + (i % 7), unit, 1 + i % 4, "k".repeat(64), Resources.of(100, 2048), i % 5 == 0, null));
        }
        Envelope e = message.equals("heartbeat")
                ? Envelope.of(new Sender(Role.AGENT, "n17"), 1_700_000_000_000L, 42,
                        new Heartbeat(started, exited, Resources.of(1600, 65_536)))
                : Envelope.of(new Sender(Role.MASTER, "granary.master"), 1_700_000_000_000L, 42,
                        new Cap(grants, List.of(), true));
        bytes = new WireCodec(e.sender().role()).encode(e);
        reader = new WireCodec(message.equals("heartbeat") ? Role.MASTER : Role.AGENT);
        if (!reader.decode(bytes, "bench").equals(e)) {
            throw new IllegalStateException("the bench's envelope does not read back: "
                    + new String(bytes, StandardCharsets.UTF_8));
        }
    }

    @Benchmark
    public Envelope decode() {
        return reader.decode(bytes, "agent n17 at 127.0.0.1:40000");
    }
}
