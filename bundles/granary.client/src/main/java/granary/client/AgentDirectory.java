package granary.client;

import granary.protocol.Hint;
import granary.protocol.Sender;
import granary.protocol.link.Link;
import granary.protocol.link.Loop;
import granary.protocol.link.Transport;
import java.net.URI;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a job master knows of the agents it plans to, as the master's hints said: each node's plan
 * endpoint and epoch, the plan pass for each endpoint (docs/security.md, "Plan passes"), and one
 * {@link Link} per agent endpoint, opened with the first plan there. Confined to the client's loop.
 */
final class AgentDirectory {

    private final Sender self;
    private final long incarnation;
    private final Link.Options options;
    private final Transport transport;
    private final Loop loop;
    /** Each agent endpoint's node epoch as the hints last said: a plan to it is stamped with it (docs/recovery.md, "A silent node"). */
    private final Map<String, Long> epochs = new HashMap<>();
    /** Each node's agent endpoint as the hints last said (kept when no slot is held there any more: its agent still knows). */
    private final Map<String, String> endpoints = new HashMap<>();
    /** The plan pass for each agent endpoint: what plans there carry. */
    private final Map<String, String> passes = new HashMap<>();
    /** The plan pass of each node, as the hints gave them (an endpoint may come after its pass). */
    private final Map<String, String> nodePasses = new HashMap<>();
    private final Map<URI, Link> links = new HashMap<>();

    AgentDirectory(Sender self, long incarnation, Link.Options options, Transport transport, Loop loop) {
        this.self = self;
        this.incarnation = incarnation;
        this.options = options.withRefusalsFinal(true);
        this.transport = transport;
        this.loop = loop;
    }

    /** {@code node}'s agent plans at {@code endpoint}, in node epoch {@code epoch} (from a placement, or the hints on disk). */
    void located(String node, String endpoint, long epoch) {
        if (!endpoint.isEmpty()) {
            epochs.put(endpoint, epoch);
            endpoints.put(node, endpoint);
            passFor(node);
        }
    }

    /** The endpoints, epochs and passes a hint gives. */
    void learn(Hint h) {
        h.placements().forEach(p -> located(p.node(), p.endpoint(), p.epoch()));
        h.passes().forEach(x -> {
            nodePasses.put(x.node(), x.pass());
            passFor(x.node());
        });
    }

    /** The pass of {@code node} goes with plans to its endpoint. */
    private void passFor(String node) {
        String endpoint = endpoints.get(node);
        String pass = nodePasses.get(node);
        if (endpoint != null && pass != null) {
            passes.put(endpoint, pass);
        }
    }

    /** The plan endpoint of {@code node}'s agent as the hints last named it, or null. */
    String endpoint(String node) {
        return endpoints.get(node);
    }

    /** The node epoch of the agent at {@code endpoint}, or 0. */
    long epoch(String endpoint) {
        return epochs.getOrDefault(endpoint, 0L);
    }

    /** The pass plans to {@code endpoint} carry, or null while the master gave none. */
    String pass(String endpoint) {
        return passes.get(endpoint);
    }

    /** The link to the agent at {@code uri}, carrying {@code pass} from now on. */
    Link link(URI uri, String pass) {
        Link link = links.computeIfAbsent(uri, u -> new Link(List.of(u), self, incarnation, pass, options, transport, loop));
        link.authorize(pass);
        return link;
    }

    void close() {
        links.values().forEach(Link::close);
    }
}
