package granary.api.event;

/** What the engine decided (grants and revocations) and the releases it applied, in order. */
public sealed interface OutputEvent permits Granted, Revoked, Released {
}
