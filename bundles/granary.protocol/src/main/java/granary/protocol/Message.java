package granary.protocol;

/**
 * The body of an {@link Envelope}. The set is closed: a new kind of message is a new protocol
 * version. Each type has a {@link #TYPES wire name}.
 */
public sealed interface Message permits Register, Heartbeat, Request, Hint, Cap, Plan, Ack {

    /** The wire names of the message types, as the envelope's {@code type} field holds them. */
    java.util.List<String> TYPES = java.util.List.of("register", "heartbeat", "request", "hint", "cap", "plan", "ack");

    /** This message's wire name, one of {@link #TYPES}. */
    String type();
}
