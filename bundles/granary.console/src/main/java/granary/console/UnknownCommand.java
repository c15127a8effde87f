package granary.console;

import java.util.List;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.CommandSessionListener;
import org.apache.felix.service.command.Function;
import org.apache.felix.service.command.Process;
import org.osgi.service.component.annotations.Component;

/**
 * An unknown command answered in words (docs/operations.md, "What the console shows"). Gogo runs a
 * session's {@code default} function when a name resolves to no command; without one it throws its
 * own not-found exception, which the JLine shell prints with its Java class name
 * ({@code org.apache.felix.gogo.runtime.CommandNotFoundException: Command not found: foo}) and a pipe
 * with its simple name ({@code gogo: CommandNotFoundException: ...}). This puts a {@code default}
 * function into every session before its first command, and it refuses with
 * {@code Command not found: foo (granary:help lists Granary's commands)}:
 * <ul>
 * <li>when the command writes to the session's own output (the terminal, or the piped console's
 *     standard output), as a {@link Refusal}, which the shell prints as its message alone and the
 *     piped console after {@code Error: } (and counts, for {@code --strict});</li>
 * <li>inside a pipe or a redirection, where Gogo would print the exception with its class name, as
 *     that text on the command's error stream, with the command's status set to failed.</li>
 * </ul>
 * A session that has its own {@code default} (set by a user or a profile) keeps it.
 */
@Component(service = CommandSessionListener.class)
public class UnknownCommand implements CommandSessionListener {

    /** The session variable Gogo runs for a name that resolves to no command. */
    static final String DEFAULT = "default";
    static final String HINT = "granary:help lists Granary's commands";
    private static final int OUT = 1;

    private static final Function REFUSE = UnknownCommand::refuse;

    /** The refusal of command {@code name}, in words. */
    static String message(Object name) {
        return "Command not found: " + name + " (" + HINT + ")";
    }

    private static Object refuse(CommandSession session, List<Object> arguments) {
        // Gogo passes the name it did not find first, then the command's arguments
        String message = message(arguments.isEmpty() ? "" : arguments.get(0));
        Process process = Process.Utils.current();
        if (process == null || process.isTty(OUT)) {
            throw new Refusal(message);
        }
        process.err().println(message);
        process.error(1);
        return null;
    }

    @Override
    public void beforeExecute(CommandSession session, CharSequence command) {
        if (session.get(DEFAULT) == null) {
            session.put(DEFAULT, REFUSE);
        }
    }

    @Override
    public void afterExecute(CommandSession session, CharSequence command, Exception exception) {
    }

    @Override
    public void afterExecute(CommandSession session, CharSequence command, Object result) {
    }
}
