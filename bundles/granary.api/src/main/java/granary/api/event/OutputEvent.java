package granary.api.event;

/** What the engine decided: grants and revocations, in decision order. */
public sealed interface OutputEvent permits Granted, Revoked {
}
