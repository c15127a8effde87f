package granary.policy.gang;

import java.util.Map;

import granary.api.Options;
import granary.api.spi.Policy;
import granary.api.spi.PolicyProvider;

/**
 * Makes gang policies on a class path (see {@link PolicyProvider}). Options: {@code packing}
 * ({@code BEST_FIT} or {@code FIRST_FIT}) and {@code refuseNeverFitting}.
 */
public class GangProvider implements PolicyProvider {

    @Override
    public String name() {
        return GangPolicy.NAME;
    }

    @Override
    public Policy create(Map<String, String> options) {
        Options o = new Options("policy " + GangPolicy.NAME, options, options().keySet());
        return new GangPolicy(o.choice("packing", Packing.class, Packing.BEST_FIT), o.flag("refuseNeverFitting", true));
    }

    @Override
    public Map<String, String> options() {
        return Map.of("packing", "BEST_FIT (default: fill the fullest nodes, keep whole nodes free) or FIRST_FIT",
                "refuseNeverFitting", "refuse at submit a gang larger than the cluster (default true)");
    }
}
