package granary.agent;

/** The master read the agent's registration and refused it; the message lists its problems (exit 5). */
public final class RegistrationRefused extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public RegistrationRefused(String message) {
        super(message);
    }
}
