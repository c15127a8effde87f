package granary.conformance.kit.processes;

/** A real-process step that did not happen within its bound, or a process that is missing or died; the message says which, with its output. */
public final class ProcessFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ProcessFailure(String message) {
        super(message);
    }
}
