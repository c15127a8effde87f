package granary.api.event;

/**
 * A policy's configuration was refused: bad options, a file that cannot be read or is invalid. The
 * runtime's policy host reports it (the policy's new settings never reached the engine). If no
 * instance of the policy is installed and the operator selected it, the engine holds all scheduling
 * until one is — it never schedules as if a configured policy (say, quota) were not there — and
 * status says why. If an instance with the previous configuration is installed, it stays in force
 * and the refusal is only reported. Installing an instance of the policy clears the report.
 *
 * @param policy  the policy's name (or the provider class when not even its name is known)
 * @param problem what is wrong, naming the configuration PID, the option, the file and the value
 */
public record PolicyFailed(String policy, String problem) implements InputEvent {
}
