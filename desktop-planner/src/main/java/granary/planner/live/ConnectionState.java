package granary.planner.live;

/** Where the live view's subscription to a master's allocation stream stands. */
public enum ConnectionState {
    /** Not connected, and not trying. */
    DISCONNECTED,
    /** Opening the stream (the first time). */
    CONNECTING,
    /** Reading the stream. */
    CONNECTED,
    /** The stream dropped or could not be opened; trying again after a bounded backoff, resuming with Last-Event-ID. */
    RECONNECTING,
    /** Refused for good (a bad token, a role that may not read, a malformed address): retrying would not help. */
    FAILED
}
