package granary.policy.submitwindow;

import java.util.Map;
import java.util.Set;

import granary.api.Options;
import granary.api.spi.Policy;
import granary.api.spi.PolicyProvider;

/** Makes SubmitWindow policies on a class path (see {@link PolicyProvider}). Option: {@code windowMillis}. */
public class SubmitWindowProvider implements PolicyProvider {

    @Override
    public String name() {
        return SubmitWindowPolicy.NAME;
    }

    @Override
    public Policy create(Map<String, String> options) {
        Options o = new Options("policy " + SubmitWindowPolicy.NAME, options, Set.of("windowMillis"));
        return new SubmitWindowPolicy(o.number("windowMillis", SubmitWindowPolicy.DEFAULT_WINDOW_MILLIS));
    }

    @Override
    public Map<String, String> options() {
        return Map.of("windowMillis", "width W of a submit window in ms (default 5000)");
    }
}
