package granary.engine.osgi;

import granary.api.event.PolicyFailed;

/**
 * Where the policy extender reports a policy configuration it refused (bad options, an unreadable
 * file). In the runtime the report goes to the engine as an event: a selected policy with no working
 * configuration holds scheduling, and {@code granary:status} says why (docs/operations.md, "Fail closed").
 */
@FunctionalInterface
interface PolicyHealth {

    void failed(PolicyFailed problem);
}
