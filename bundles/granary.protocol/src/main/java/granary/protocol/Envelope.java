package granary.protocol;

import java.util.Objects;

/**
 * What travels on the wire: one message with who sent it and where it stands in the sender's
 * stream.
 *
 * @param version     the protocol version the sender speaks ({@link WireCodec#VERSION})
 * @param sender      role and id of the sender
 * @param incarnation the sender's current life: a new, larger value after every restart (e.g. its
 *                    start time in milliseconds); messages of an older incarnation are refused
 * @param sequence    1, 2, 3, … within one incarnation of the sender, one per envelope; an {@link Ack}
 *                    sent as the reply to an envelope is outside that stream and carries 0
 * @param message     the message
 */
public record Envelope(int version, Sender sender, long incarnation, long sequence, Message message) {

    public Envelope {
        Objects.requireNonNull(sender, "sender");
        Objects.requireNonNull(message, "message");
    }

    /** An envelope of the lowest protocol version that carries {@code message} ({@link WireCodec#versionFor}). */
    public static Envelope of(Sender sender, long incarnation, long sequence, Message message) {
        return new Envelope(WireCodec.versionFor(message), sender, incarnation, sequence, message);
    }
}
