package granary.policy.queues;

import java.util.Map;
import java.util.Set;

import granary.api.Options;
import granary.api.spi.Policy;
import granary.api.spi.PolicyProvider;

/** Makes queue policies on a class path (see {@link PolicyProvider}). Option: {@code file} (the queue tree). */
public class QueuesProvider implements PolicyProvider {

    @Override
    public String name() {
        return QueuesPolicy.NAME;
    }

    @Override
    public Policy create(Map<String, String> options) {
        Options o = new Options("policy " + QueuesPolicy.NAME, options, Set.of("file"));
        return new QueuesPolicy(QueueFile.read(o.text("file", "")));
    }

    @Override
    public Map<String, String> options() {
        return Map.of("file", "queue tree file (JSON); none: names as given, no limits");
    }
}
