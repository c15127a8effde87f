package granary.agent;

import granary.api.model.Clock;
import granary.protocol.link.LinkException;
import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -jar granary-agent.jar --master=URL --node=NAME ...}: runs one agent until the JVM is
 * stopped (SIGTERM, Ctrl-C). Exit codes: 0 stopped, 1 an I/O failure at start, 2 bad options,
 * 3 token refused, 4 master unreachable after the retries, 5 registration refused or not understood.
 * On exit the workers are stopped unless {@code --keep-workers-on-exit} is set.
 */
public final class Main {

    public static final int IO = 1;
    public static final int USAGE = 2;
    public static final int UNAUTHORIZED = 3;
    public static final int UNREACHABLE = 4;
    public static final int REFUSED = 5;
    /** What {@link #run} returns when the agent runs (and the JVM must stay up). */
    static final int RUNNING = -1;

    private Main() {
    }

    public static void main(String[] args) {
        int code = run(args, System.out, System.err);
        if (code != RUNNING) {
            System.exit(code);
        }
        try {
            new CountDownLatch(1).await(); // the shutdown hook ends the agent
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Starts an agent and returns {@link #RUNNING} once it runs (a shutdown hook closes it), or the exit code. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        if (CommandLine.wantsHelp(args)) {
            out.println(CommandLine.USAGE);
            return 0;
        }
        AgentConfig config;
        try {
            config = CommandLine.parse(args);
        } catch (UsageException ex) {
            err.println("granary-agent: " + ex.getMessage());
            return USAGE;
        }
        Agent agent = new Agent(config, Clock.system(), line -> {
            synchronized (out) {
                out.println(line);
                out.flush();
            }
        });
        try {
            agent.start();
        } catch (LinkException ex) {
            agent.close();
            err.println("granary-agent: " + message(config, ex));
            return switch (ex.kind()) {
                case UNAUTHORIZED -> UNAUTHORIZED;
                case UNREACHABLE -> UNREACHABLE;
                default -> REFUSED;
            };
        } catch (RegistrationRefused ex) {
            agent.close();
            err.println("granary-agent: " + ex.getMessage());
            return REFUSED;
        } catch (IOException | RuntimeException ex) {
            agent.close();
            err.println("granary-agent: cannot start node " + config.node() + ": " + ex);
            return IO;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(agent::close, "granary-agent shutdown"));
        return RUNNING;
    }

    private static String message(AgentConfig config, LinkException ex) {
        return switch (ex.kind()) {
            case UNAUTHORIZED -> "the master at " + config.master() + " refused the token of node " + config.node()
                    + " (agent/" + config.node() + "): " + ex.getMessage();
            case UNREACHABLE -> "cannot register node " + config.node() + ": the master at " + config.master()
                    + " is unreachable after " + (config.registerRetries() + 1) + " attempts (--register-retries="
                    + config.registerRetries() + "): " + ex.getMessage();
            default -> "cannot register node " + config.node() + " with " + config.master() + ": " + ex.getMessage();
        };
    }
}
