package granary.api.spi;

import java.util.List;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A policy that takes new settings while it runs (a quota table, a queue tree), keeping its state.
 * Called on the engine thread on a {@link granary.api.event.PolicyReconfigured} event, between two
 * decisions; the engine then looks at every node again, since limits may have grown.
 */
@ConsumerType
public interface Reconfigurable extends Policy {

    /**
     * Validates and applies {@code settings}, or throws {@link granary.api.model.InvalidRequestException}
     * listing every problem and keeps the settings in force untouched.
     *
     * @return notes for the operator (what changed)
     */
    List<String> reconfigure(Object settings, EngineView view);

    /**
     * The settings in force, of the type {@link #reconfigure} takes (what an operator's tool reads
     * back, edits and loads again, e.g. the HTTP API's {@code GET /api/v1/quota}), or null if this
     * policy does not say. Called on the engine thread.
     */
    default Object settings() {
        return null;
    }
}
