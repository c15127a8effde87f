package granary.policy.fair;

import java.util.Map;
import java.util.Set;

import granary.api.Options;
import granary.api.spi.Policy;
import granary.api.spi.PolicyProvider;

/** Makes FAIR policies on a class path (see {@link PolicyProvider}). Option: {@code measure}. */
public class FairProvider implements PolicyProvider {

    @Override
    public String name() {
        return FairPolicy.NAME;
    }

    @Override
    public Policy create(Map<String, String> options) {
        Options o = new Options("policy " + FairPolicy.NAME, options, Set.of("measure"));
        return new FairPolicy(o.choice("measure", FairPolicy.Measure.class, FairPolicy.Measure.SLOTS));
    }

    @Override
    public Map<String, String> options() {
        return Map.of("measure", "SLOTS (default) or FRACTION of the desired slots held");
    }
}
