package granary.agent;

import granary.api.model.Clock;
import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * {@code java -jar granary-agent.jar --master=URL --node=NAME ...}: runs one agent until the JVM is
 * stopped (SIGTERM, Ctrl-C). Exit codes: 0 stopped, 1 an I/O failure at start, 2 bad options, and,
 * only on a first start with no worker running (docs/recovery.md): 3 token refused, 4 master
 * unreachable after the retries, 5 registration refused. An agent that gives up never stops its
 * workers; one that is stopped stops them unless {@code --keep-workers-on-exit} is set.
 */
public final class Main {

    public static final int IO = 1;
    public static final int USAGE = 2;
    public static final int UNAUTHORIZED = AgentRole.UNAUTHORIZED;
    public static final int UNREACHABLE = AgentRole.UNREACHABLE;
    public static final int REFUSED = AgentRole.REFUSED;
    /** What {@link #run} returns when the agent runs (and the JVM must stay up). */
    static final int RUNNING = -1;

    private Main() {
    }

    public static void main(String[] args) {
        CompletableFuture<Integer> ended = new CompletableFuture<>();
        int code = run(args, System.out, System.err, ended);
        if (code != RUNNING) {
            System.exit(code);
        }
        try {
            System.exit(ended.get()); // the shutdown hook ends the agent otherwise
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException ex) {
            System.exit(IO);
        }
    }

    /**
     * Starts an agent and returns {@link #RUNNING} once it runs (a shutdown hook closes it), or the
     * exit code; {@code ended} completes with a code if the agent gives up later.
     */
    static int run(String[] args, PrintStream out, PrintStream err, CompletableFuture<Integer> ended) {
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
        // hooked before the start: a SIGTERM just after "registered" (or during the start) closes the agent,
        // its cgroups removed, rather than ending the JVM with nothing closed
        Thread hook = new Thread(agent::close, "granary-agent shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            agent.start();
        } catch (AgentRole.GaveUp ex) {
            unhook(hook);
            err.println("granary-agent: " + ex.getMessage());
            return ex.code();
        } catch (IOException | RuntimeException ex) {
            unhook(hook);
            err.println("granary-agent: cannot start node " + config.node() + ": " + (ex instanceof IOException && ex.getMessage() != null ? ex.getMessage() : ex));
            return IO;
        }
        agent.ended().thenAccept(code -> {
            err.println("granary-agent: node " + config.node() + " gives up (exit " + code + "); its workers are left running");
            err.flush();
            ended.complete(code);
        });
        return RUNNING;
    }

    /** A start that failed leaves its adopted workers running (and cleaned up after itself): no close at exit. */
    private static void unhook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // the JVM is ending already: the hook runs, and closes what the start left
        }
    }
}
