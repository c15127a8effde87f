package granary.protocol;

import granary.api.model.Problem;
import java.util.List;

/**
 * Any role → the sender of an envelope: the envelope with sequence number {@code sequence} was
 * applied (no problems) or refused (the problems say why; nothing was applied). A retry of the same
 * envelope gets the same ack.
 *
 * @param sequence the acknowledged envelope's sequence number
 * @param problems empty when applied; why it was refused otherwise
 */
public record Ack(long sequence, List<Problem> problems) implements Message {

    public Ack {
        problems = List.copyOf(problems);
    }

    public static Ack applied(long sequence) {
        return new Ack(sequence, List.of());
    }

    public static Ack refused(long sequence, List<Problem> problems) {
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a refusal needs at least one problem");
        }
        return new Ack(sequence, problems);
    }

    public boolean isRefusal() {
        return !problems.isEmpty();
    }

    @Override
    public String type() {
        return "ack";
    }
}
