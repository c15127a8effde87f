package granary.agent;

/** A checkpoint file cannot be used: it is torn, corrupt or of another format. The message names the file and what is wrong. */
public final class CheckpointException extends Exception {

    private static final long serialVersionUID = 1L;

    private final String file;
    private final String problem;

    public CheckpointException(String file, String problem) {
        super(file + ": " + problem);
        this.file = file;
        this.problem = problem;
    }

    /** Where the file is. */
    public String file() {
        return file;
    }

    /** What is wrong, without the file name. */
    public String problem() {
        return problem;
    }
}
