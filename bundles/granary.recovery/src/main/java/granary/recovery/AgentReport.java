package granary.recovery;

import granary.api.model.NodeSpec;
import granary.protocol.Cap;
import java.util.List;
import java.util.Objects;

/** What an agent told a recovering master: its node and every cap it holds (from memory or its checkpoint). */
public record AgentReport(NodeSpec node, List<Cap.Grant> caps) {
    public AgentReport {
        Objects.requireNonNull(node, "node");
        caps = List.copyOf(caps);
    }
}
