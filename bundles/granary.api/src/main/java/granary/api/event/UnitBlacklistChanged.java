package granary.api.event;

import granary.api.model.UnitId;
import java.util.Set;
import java.util.TreeSet;

/**
 * A job master keeps one of its units off {@code nodes} from now on (its own blacklist, as a unit's
 * {@link granary.api.model.UnitSpec#blacklist()} at submission): the set replaces the unit's
 * blacklist; an empty set lifts it. Slots the unit holds there stay until released — the job master
 * decides what to do with work running there. Nothing else of the unit changes (docs/agent.md,
 * "Blacklisting a node for one job").
 */
public record UnitBlacklistChanged(UnitId unit, Set<String> nodes) implements InputEvent {

    public UnitBlacklistChanged {
        nodes = nodes == null ? Set.of() : Set.copyOf(new TreeSet<>(nodes));
    }
}
