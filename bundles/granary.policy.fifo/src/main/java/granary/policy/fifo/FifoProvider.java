package granary.policy.fifo;

import java.util.Map;
import java.util.Set;

import granary.api.Options;
import granary.api.spi.Policy;
import granary.api.spi.PolicyProvider;

/** Makes FIFO policies on a class path (see {@link PolicyProvider}). Option: {@code priorityFirst}. */
public class FifoProvider implements PolicyProvider {

    @Override
    public String name() {
        return FifoPolicy.NAME;
    }

    @Override
    public Policy create(Map<String, String> options) {
        Options o = new Options("policy " + FifoPolicy.NAME, options, Set.of("priorityFirst"));
        return new FifoPolicy(o.flag("priorityFirst", true));
    }

    @Override
    public Map<String, String> options() {
        return Map.of("priorityFirst", "order by priority before submit time (default true)");
    }
}
