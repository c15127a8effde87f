package granary.api.event;

/**
 * An input to the scheduling engine. The engine is a single-threaded loop over these events: each
 * is validated, then applied, then one scheduling cycle runs. An event that fails validation changes
 * nothing and is answered with an {@link granary.api.model.InvalidRequestException}.
 */
public sealed interface InputEvent permits NodeAdded, NodeRemoved, NodeCapacityChanged, NodeBlacklisted,
        JobSubmitted, JobsSubmitted, UnitRequested, UnitDesireChanged, UnitBlacklistChanged, UnitCancelled, JobCancelled, JobMoved, GrantReleased, GrantAdopted, JobsAdopted,
        PolicyActivated, PolicyDeactivated, PolicyInstalled, PolicyUninstalled, PolicyReconfigured, PolicyFailed, ClockTick {
}
