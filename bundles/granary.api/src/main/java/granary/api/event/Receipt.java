package granary.api.event;

import java.util.List;

import granary.api.event.OutputEvent;

/**
 * What handling one input event produced: the grants and revocations of its scheduling cycle, and
 * notes for the operator (e.g. {@code unit-order: fifo -> fair} after a policy change).
 */
public record Receipt(List<OutputEvent> outputs, List<String> notes) {

    public Receipt {
        outputs = List.copyOf(outputs);
        notes = List.copyOf(notes);
    }
}
