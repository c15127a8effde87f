package granary.agent;

import granary.api.model.Clock;
import granary.protocol.disk.FileDisk;
import granary.protocol.link.Endpoint;
import granary.protocol.link.HttpTransport;
import granary.protocol.link.JdkHttpServer;
import granary.protocol.link.Reply;
import granary.protocol.link.ThreadLoop;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * An agent as a process: its {@link AgentRole} on a thread of its own ({@link ThreadLoop}), the
 * master reached over HTTP, its checkpoint and run records on the file system, its workers as
 * operating system processes ({@link OsLauncher}), and the plan endpoint on the JDK's HTTP server,
 * whose threads hand each call to the loop.
 */
public final class Agent implements AutoCloseable {

    /** Checkpoint file name in the work dir. */
    public static final String CHECKPOINT = AgentRole.CHECKPOINT;

    /** The longest an HTTP thread waits for the loop to take a plan before answering 503. */
    private static final Duration DESK_WAIT = Duration.ofSeconds(10);

    private final AgentConfig config;
    private final Clock clock;
    private final Consumer<String> events;
    private final CompletableFuture<Integer> ended = new CompletableFuture<>();
    // set by start, read by close, which a shutdown hook may run while a start is under way: both under this
    private ThreadLoop loop;
    private AgentRole role;
    private JdkHttpServer server;
    private boolean closed;
    private URI endpoint;
    private Launcher launcher;

    /**
     * @param events receives one line per event ({@code registered ...}, {@code cap ...}, {@code launched ...}, …), from the agent's thread
     */
    public Agent(AgentConfig config, Clock clock, Consumer<String> events) {
        this.config = config;
        this.clock = clock;
        this.events = events;
    }

    /**
     * Loads the checkpoint, adopts what a previous life left, starts the plan endpoint and
     * registers. Returns once registered — or, with workers running, once it is clear the master
     * does not answer yet (the agent keeps its workers and keeps trying).
     *
     * @throws AgentRole.GaveUp a first start with no worker cannot go on (its code: 3 token refused,
     *                          4 master unreachable, 5 registration refused)
     * @throws IOException      the work dir or the listening address cannot be used
     */
    public void start() throws IOException {
        WorkerPolicy policy = config.workers();
        if (policy.capacityNote() != null) {
            events.accept("capacity " + config.capacity() + " (" + policy.capacityNote() + ")");
        }
        Cgroups cgroups = cgroups(policy);
        boolean enforce = policy.isolation() == WorkerPolicy.Isolation.HARD || policy.isolation() == WorkerPolicy.Isolation.AUTO;
        unlessClosed(() -> {
            loop = new ThreadLoop("granary-agent " + config.node(), clock, ex -> events.accept("internal-error " + ex));
            launcher = new OsLauncher(config.workDir(), config.node(), loop, policy, cgroups, cgroups != null && enforce);
        }, () -> {
            if (cgroups != null) {
                cgroups.close();
            }
        });
        events.accept("workers user=" + (policy.user() == null ? "(the agent's own)" : policy.user())
                + (policy.allowedUsers().isEmpty() ? "" : " allowed=" + String.join(",", policy.allowedUsers()))
                + (policy.allowRoot() ? "" : " root=refused"));
        boolean started = false;
        try {
            AgentRole made = new AgentRole(config, loop, new HttpTransport(Duration.ofSeconds(10), null), new FileDisk(config.workDir()),
                    launcher, events, (code, why) -> ended.complete(code));
            unlessClosed(() -> role = made, () -> { });
            Endpoint desk = onLoop(() -> {
                try {
                    return role.load();
                } catch (IOException ex) {
                    throw new java.io.UncheckedIOException(ex);
                }
            });
            JdkHttpServer listening = JdkHttpServer.start(config.listen(), new LoopEndpoint(desk), config.tls() == null ? null : tls(config.tls()));
            unlessClosed(() -> server = listening, listening::close);
            endpoint = config.advertise() != null ? config.advertise() : server.url();
            CompletableFuture<Void> first = onLoop(() -> role.start(endpoint));
            first.get();
            started = true;
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while registering node " + config.node(), ex);
        } catch (ExecutionException ex) {
            if (ex.getCause() instanceof AgentRole.GaveUp g) {
                throw g;
            }
            throw new IOException("registering node " + config.node() + " failed: " + ex.getCause(), ex.getCause());
        } finally {
            if (!started) {
                launcher.close(); // the cgroups made for workers go, those of workers left running excepted
            }
        }
    }

    /**
     * The workers' cgroups as the isolation mode asks (docs/agent.md, "Isolation"): none when off,
     * with a warning; with auto, none where they cannot be written, with a warning saying why.
     *
     * @throws IOException soft or hard isolation asked where cgroups cannot be used, saying why
     */
    private Cgroups cgroups(WorkerPolicy policy) throws IOException {
        return isolation(policy, config.node(), config.workDir(), events);
    }

    /** As {@link #cgroups}, for {@code node} with {@code workDir}, saying what it found to {@code events}. */
    static Cgroups isolation(WorkerPolicy policy, String node, java.nio.file.Path workDir, Consumer<String> events) throws IOException {
        String warning = "workers are not held to their slots, their usage comes from /proc, and a stop reaches only the"
                + " processes that stay in a worker's tree";
        if (policy.isolation() == WorkerPolicy.Isolation.OFF) {
            events.accept("isolation-off reason=--isolation=off (" + warning + ")");
            return null;
        }
        Cgroups c;
        try {
            c = Cgroups.open(OsLauncher.parentGroup(node, workDir));
        } catch (IOException ex) {
            if (policy.isolation() == WorkerPolicy.Isolation.AUTO) {
                events.accept("isolation-off reason=" + ex.getMessage() + " (" + warning + "; --isolation=off says it is meant)");
                return null;
            }
            throw new IOException("--isolation=" + policy.isolation().word() + ": " + ex.getMessage()
                    + " (--isolation=off runs workers without cgroups)", ex);
        }
        String mode = policy.isolation() == WorkerPolicy.Isolation.SOFT ? "soft" : "hard";
        events.accept("isolation mode=" + mode + " kind=" + c.kind() + " parents=" + c.parents()
                + (mode.equals("soft") ? " (usage and process trees; no limits)" : " (cpu and memory limited to each worker's slot)"));
        return c;
    }

    private <T> T onLoop(java.util.function.Supplier<T> task) throws IOException {
        try {
            return loop.call(task, Duration.ofSeconds(60));
        } catch (TimeoutException ex) {
            throw new IOException("the agent's loop did not answer within 60 s", ex);
        } catch (java.io.UncheckedIOException ex) {
            throw ex.getCause();
        }
    }

    /** Completes with an exit code when the agent gave up after it started (its workers left alone). */
    public CompletableFuture<Integer> ended() {
        return ended;
    }

    /** The plan endpoint's base URL as registered. */
    public URI endpoint() {
        return endpoint;
    }

    public long incarnation() {
        return role.incarnation();
    }

    /** The caps held now. */
    public List<granary.protocol.Cap.Grant> caps() {
        return onLoopForTest(role::caps);
    }

    /** The role, for tests in this package (call it on the loop: {@link #onLoopForTest}). */
    AgentRole role() {
        return role;
    }

    /** Runs {@code task} on the agent's loop and returns its value (tests). */
    <T> T onLoopForTest(java.util.function.Supplier<T> task) {
        try {
            return onLoop(task);
        } catch (IOException ex) {
            throw new java.io.UncheckedIOException(ex);
        }
    }

    /** The node's state, read on the loop (tests). */
    Node node() {
        return role.node();
    }

    /**
     * Keeps what a start made ({@code keep}) unless the agent was closed meanwhile (SIGTERM's shutdown
     * hook may close it at any point of a start); then drops it ({@code drop}) and the start ends there.
     */
    private synchronized void unlessClosed(Runnable keep, Runnable drop) throws IOException {
        if (closed) {
            drop.run();
            throw new IOException("node " + config.node() + " was stopped while it started");
        }
        keep.run();
    }

    /** Stops talking to the master and the endpoint; stops the workers unless {@link AgentConfig#keepWorkersOnExit()}. */
    @Override
    public void close() {
        ThreadLoop l;
        JdkHttpServer s;
        AgentRole r;
        Launcher workers;
        synchronized (this) { // once: a start still under way sees it and stops there
            if (closed) {
                return;
            }
            closed = true;
            l = loop;
            s = server;
            r = role;
            workers = launcher;
        }
        if (s != null) {
            s.close();
        }
        List<Launcher.Running> stopping = List.of();
        if (l != null && r != null) {
            try {
                stopping = l.call(() -> {
                    r.close();
                    return config.keepWorkersOnExit() ? List.<Launcher.Running>of() : r.stopWorkers();
                }, Duration.ofSeconds(10));
            } catch (TimeoutException | RuntimeException ex) {
                events.accept("close-failed error=" + ex);
            }
        }
        awaitEnd(stopping);
        if (l != null) {
            l.close();
        }
        if (workers != null && !config.keepWorkersOnExit()) {
            workers.close();
        }
    }

    /** Waits up to the stop grace for stopped workers to end, then kills what is left. */
    private void awaitEnd(List<Launcher.Running> stopping) {
        long deadline = System.nanoTime() + config.stopGrace().toNanos();
        while (System.nanoTime() < deadline && stopping.stream().anyMatch(Launcher.Running::alive)) {
            try {
                Thread.sleep(20);   // other processes ending: nothing to be notified by here
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        stopping.stream().filter(Launcher.Running::alive).forEach(Launcher.Running::kill);
    }

    /**
     * The TLS context of the plan endpoint from its key store (docs/security.md, "TLS for plans").
     *
     * @throws IOException naming the file when the key store or a password cannot be read or does not open
     */
    static javax.net.ssl.SSLContext tls(AgentConfig.Tls t) throws IOException {
        char[] storePassword = firstLine(t.keystorePasswordFile()).toCharArray();
        char[] keyPassword = t.keyPasswordFile() == null ? storePassword : firstLine(t.keyPasswordFile()).toCharArray();
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(t.keystore())) {
            String name = t.keystore().getFileName().toString().toLowerCase(java.util.Locale.ROOT);
            java.security.KeyStore ks = java.security.KeyStore.getInstance(name.endsWith(".jks") ? "JKS" : "PKCS12");
            ks.load(in, storePassword);
            javax.net.ssl.KeyManagerFactory kmf = javax.net.ssl.KeyManagerFactory.getInstance(
                    javax.net.ssl.KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, keyPassword);
            javax.net.ssl.SSLContext ctx = javax.net.ssl.SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), null, null);
            return ctx;
        } catch (java.security.GeneralSecurityException ex) {
            throw new IOException("--keystore " + t.keystore() + ": " + ex.getMessage(), ex);
        }
    }

    private static String firstLine(java.nio.file.Path file) throws IOException {
        String text = java.nio.file.Files.readString(file, java.nio.charset.StandardCharsets.UTF_8);
        int nl = text.indexOf('\n');
        return (nl < 0 ? text : text.substring(0, nl)).strip();
    }

    /** The plan endpoint as the HTTP server's threads see it: every call handed to the loop. */
    private final class LoopEndpoint implements Endpoint {
        private final Endpoint desk;

        LoopEndpoint(Endpoint desk) {
            this.desk = desk;
        }

        @Override
        public Reply post(String authorization, byte[] body, String remote) {
            try {
                return loop.call(() -> desk.post(authorization, body, remote), DESK_WAIT);
            } catch (TimeoutException ex) {
                return new Reply(503, new byte[0]);
            }
        }

        @Override
        public Reply admit(String authorization, String remote) {
            try {
                return loop.call(() -> desk.admit(authorization, remote), DESK_WAIT);
            } catch (TimeoutException ex) {
                return new Reply(503, new byte[0]);
            }
        }

        @Override
        public CompletableFuture<Reply> poll(String authorization, long after, long waitMillis, String remote) {
            return desk.poll(authorization, after, waitMillis, remote);
        }
    }
}
