package granary.engine.policy;

import granary.api.spi.EngineView;
import granary.api.spi.GroupResolver;

/** The engine's built-in group resolver: a job's group is the name it gives, as it is. */
final class FlatGroups implements GroupResolver {

    static final String NAME = "flat";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String resolve(String requested, EngineView view) {
        return requested;
    }
}
