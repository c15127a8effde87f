package granary.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;

import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.launch.FrameworkFactory;

import granary.protocol.link.Tokens;

/**
 * The standalone runtime: starts the framework found on the class path with the bundles packed in
 * the runnable jar, then hands standard input to the Gogo shell (a terminal) or runs it line by
 * line (a pipe or a file, see {@link PipedConsole}).
 */
public final class Launcher {

    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILED_COMMAND = 1;
    public static final int EXIT_USAGE = 2;
    public static final int EXIT_STARTUP = 3;

    /** The PID and property of the demo switch. */
    public static final String DEMO_PID = "granary.demo";

    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    /** How long the HTTP server may take to listen once the runtime is ready (Jetty starts in well under a second). */
    private static final Duration LISTEN_TIMEOUT = Duration.ofSeconds(10);

    /** The PID of the master and its setting of the token secret file. */
    public static final String MASTER_PID = "granary.master";
    /** The PID of the HTTP API (granary.http.osgi.ApiComponent). */
    public static final String HTTP_PID = "granary.http";
    public static final String SECRET_FILE = "secretFile";

    /**
     * Kept, so that its level stays: java.util.logging holds loggers weakly. SPI Fly logs each provider it
     * registers at INFO through java.util.logging when there is no OSGi LogService.
     */
    private static final java.util.logging.Logger SPI_FLY_LOG = java.util.logging.Logger.getLogger("org.apache.aries.spifly");

    private Launcher() {
    }

    /**
     * Runs the runtime until the console ends; called by {@link Main} in the launcher's class loader.
     *
     * @param self the runnable jar (source of the bundles)
     * @param work a fresh directory for the framework's storage; deleted on exit
     * @return the process exit code
     */
    public static int run(String[] args, Path self, Path work, PrintStream out, PrintStream err, InputStream in) {
        Options options;
        try {
            options = Options.parse(args, System.getProperties());
        } catch (IllegalArgumentException e) {
            err.println("Error: " + e.getMessage());
            err.println(Options.USAGE);
            return EXIT_USAGE;
        }
        if (options.help()) {
            out.println(Options.USAGE);
            return EXIT_OK;
        }
        if (options.issueToken() != null) {
            return issueToken(options, out, err);
        }
        if (options.tokenOp() != null) {
            return tokenOp(options, out, err);
        }
        Map<String, String> properties;
        try {
            properties = frameworkProperties(work, interactive(options));
            GoshArgs.writeProfile(work, interactive(options));
            properties.putAll(Http.frameworkProperties(options.listen(), options.tls()));
            Http.checkBindable(options.listen(), options.tls() != null);
        } catch (IOException e) {
            err.println("Error: the runtime did not start: " + e.getMessage());
            return EXIT_STARTUP;
        }
        quietLogging(options.listen() == null);
        boolean interactive = interactive(options);
        Container container;
        try {
            container = Container.startHolding(frameworkFactory(), properties,
                    EmbeddedBundle.listIn(self), configurations(options), Launcher::isShell);
        } catch (BundleException | IOException | RuntimeException e) {
            err.println("Error: the runtime did not start: " + e.getMessage());
            return EXIT_STARTUP;
        }
        try {
            // the prompt (the shell bundle) comes when the commands, the policies and the demo are there
            Readiness.State state = Readiness.await(container.context(), options.commandWait());
            if (!state.failed().isEmpty()) {
                // fail closed: a runtime whose configured parts were refused does not start half-way
                // (docs/operations.md, "Fail closed")
                state.failed().forEach(p -> err.println("Error: " + p));
                err.println("Error: the runtime did not start: fix the configuration above and start again");
                container.stop(STOP_TIMEOUT);
                return EXIT_STARTUP;
            }
            state.waiting().forEach(p -> err.println("Warning: not ready: " + p));
            ConfigurationPids.warnings(options.config().keySet(), ConfigurationPids.known(container.context()))
                    .forEach(w -> err.println("Warning: " + w));
            if (options.listen() != null) {
                err.println("granary: listening on " + Http.awaitListening(container.context(), options.listen(),
                        options.tls() != null, LISTEN_TIMEOUT));
                JvmCheck.collectorWarning(JvmCheck.collectors()).ifPresent(w -> err.println("Warning: " + w));
            }
        } catch (IOException e) {
            err.println("Error: the runtime did not start: " + e.getMessage());
            container.stop(STOP_TIMEOUT);
            return EXIT_STARTUP;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        container.startHeld();
        container.problems().forEach(p -> err.println("Warning: " + p));
        Thread hook = new Thread(() -> {
            container.stop(STOP_TIMEOUT);   // Ctrl-C: stop the bundles cleanly, then drop the storage
            Main.deleteTree(work);
        }, "granary-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            if (interactive) {
                container.awaitStop();
                return EXIT_OK;
            }
            return new PipedConsole(container, options.strict(), options.commandWait(), out, err).run(in);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return EXIT_STARTUP;
        } finally {
            container.stop(STOP_TIMEOUT);
            removeHook(hook);
        }
    }

    private static boolean interactive(Options options) {
        return switch (options.mode()) {
            case INTERACTIVE -> true;
            case PIPED -> false;
            case AUTO -> System.console() != null;
        };
    }

    /**
     * {@code --issue-token}: the token of one identity, from the secret file; a missing file is an
     * error unless {@code --create-secret} (a mistyped path must not make a secret no master uses).
     */
    private static int issueToken(Options options, PrintStream out, PrintStream err) {
        Path file = options.secret().toAbsolutePath();
        try {
            Tokens tokens = options.createSecret() ? Tokens.fromFile(file) : Tokens.fromExistingFile(file);
            String exposed = Tokens.exposure(file);
            if (exposed != null) {
                err.println("Warning: --secret: " + exposed);
            }
            long now = System.currentTimeMillis();
            out.println(tokens.issue(options.issueToken(), now, options.expires() == null ? 0 : now + options.expires().toMillis()));
            return EXIT_OK;
        } catch (IOException e) {
            err.println("Error: --secret: " + e.getMessage());
            return EXIT_STARTUP;
        }
    }

    /** {@code --rotate-secret} and {@code --revoke-token}: change the secret's files, say what was done, exit. */
    private static int tokenOp(Options options, PrintStream out, PrintStream err) {
        Path file = options.secret().toAbsolutePath();
        try {
            Tokens.fromExistingFile(file); // it reads: the operation will not spoil it
            if (options.tokenOp().equals("rotate")) {
                String id = Tokens.addKey(file);
                out.println("key " + id + " issues tokens from now on; the keys after it in " + file
                        + " are still taken until their lines are removed");
            } else {
                String given = options.tokenOp().substring("revoke:".length());
                String id = Tokens.revoke(file, given, "revoked " + java.time.Instant.now());
                out.println("token " + id + " is revoked (" + Tokens.revokedFile(file) + "); a running master refuses it within a second");
            }
            return EXIT_OK;
        } catch (IOException e) {
            err.println("Error: --secret: " + e.getMessage());
            return EXIT_STARTUP;
        }
    }

    /**
     * Jetty (through slf4j-simple) and SPI Fly (through java.util.logging) log their start at INFO:
     * only warnings and errors reach standard error, and nothing standard output, which carries the
     * console's results. With {@code --listen=off}, Felix HTTP's warning that it starts no server is
     * expected and left out. A system property given on the command line wins.
     */
    static void quietLogging(boolean httpOff) {
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        System.getProperties().putIfAbsent("org.slf4j.simpleLogger.logFile", "System.err");
        if (httpOff) {
            System.getProperties().putIfAbsent("org.slf4j.simpleLogger.log.org.apache.felix.http", "error");
        }
        SPI_FLY_LOG.setLevel(java.util.logging.Level.WARNING);
    }

    /** The one framework on the class path (the runnable jar carries exactly one). */
    static FrameworkFactory frameworkFactory() {
        Iterator<FrameworkFactory> found = ServiceLoader.load(FrameworkFactory.class, Launcher.class.getClassLoader())
                .iterator();
        if (!found.hasNext()) {
            throw new IllegalStateException("no OSGi framework on the class path (no FrameworkFactory service)");
        }
        return found.next();
    }

    /**
     * Properties of the framework: a fresh storage, and the Gogo shell's arguments. A system property
     * of the same name wins (BundleContext.getProperty falls back to system properties).
     */
    static Map<String, String> frameworkProperties(Path work, boolean interactive) {
        Map<String, String> p = new HashMap<>(runtimeDefaults());
        p.put(Constants.FRAMEWORK_STORAGE, work.resolve("storage").toString());
        p.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        if (System.getProperty(GoshArgs.PROPERTY) == null) {
            p.put(GoshArgs.PROPERTY, interactive ? GoshArgs.INTERACTIVE : GoshArgs.PIPED);
        }
        if (System.getProperty(GoshArgs.HOME) == null) {
            p.put(GoshArgs.HOME, work.toString());
        }
        return p;
    }

    /**
     * The console shell bundles: started last, once the runtime is ready, so the prompt never precedes
     * the commands. Piped too: Gogo's JLine bundle registers the standard commands (echo, grep, cat,
     * ...) when it starts; with {@link GoshArgs#PIPED} it reads no input and stops nothing.
     */
    static boolean isShell(org.osgi.framework.Bundle b) {
        String bsn = b.getSymbolicName();
        return "org.apache.felix.gogo.shell".equals(bsn) || "org.apache.felix.gogo.jline".equals(bsn);
    }

    /** The stock Felix's property that has the Granary console start the shell (granary.console.ShellStarter). */
    static final String STOCK_FELIX_SHELL = "granary.console.startShell";

    /** The resource of the runtime's policy defaults (framework properties). */
    static final String RUNTIME_DEFAULTS = "/granary-runtime.properties";

    /**
     * The runtime's policy selection and fallback ({@code granary-runtime.properties}); a system
     * property of the same name wins (BundleContext.getProperty falls back to system properties, so
     * a property left out here is read from there).
     */
    static Map<String, String> runtimeDefaults() {
        Properties defaults = new Properties();
        try (InputStream in = Launcher.class.getResourceAsStream(RUNTIME_DEFAULTS)) {
            if (in == null) {
                throw new IllegalStateException("the launcher jar has no " + RUNTIME_DEFAULTS);
            }
            defaults.load(in);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + RUNTIME_DEFAULTS + ": " + e, e);
        }
        // the launcher starts the shell itself, once the runtime is ready (Container.startHeld)
        defaults.remove(STOCK_FELIX_SHELL);
        Map<String, String> p = new HashMap<>();
        for (String k : defaults.stringPropertyNames()) {
            if (System.getProperty(k) == null) {
                p.put(k, defaults.getProperty(k));
            }
        }
        return p;
    }

    /** Initial Config Admin configurations from the options. */
    static Map<String, Map<String, Object>> configurations(Options options) {
        Map<String, Map<String, Object>> all = new java.util.LinkedHashMap<>(options.config());
        Map<String, Object> master = new java.util.LinkedHashMap<>(all.getOrDefault(MASTER_PID, Map.of()));
        master.putIfAbsent(SECRET_FILE, options.secret().toAbsolutePath().toString());
        all.put(MASTER_PID, master);
        // the HTTP API checks its users' tokens under the same secret (docs/api.md)
        Map<String, Object> http = new java.util.LinkedHashMap<>(all.getOrDefault(HTTP_PID, Map.of()));
        http.putIfAbsent(SECRET_FILE, options.secret().toAbsolutePath().toString());
        all.put(HTTP_PID, http);
        if (!options.demo()) {
            Map<String, Object> demo = new java.util.LinkedHashMap<>(all.getOrDefault(DEMO_PID, Map.of()));
            demo.put("enabled", Boolean.FALSE);
            all.put(DEMO_PID, demo);
        }
        return all;
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down: the hook runs anyway
        }
    }

    /**
     * The arguments the Gogo shell 1.1.4 bundle runs at start, as {@code gosh --login <gosh.args>}
     * (read from its Activator): {@code --nointeractive} starts no console (and, without a console,
     * never stops the framework); {@code --noshutdown} keeps the framework running when the console
     * ends. Equinox starts no console when the property is unset (see toolchain.md).
     */
    static final class GoshArgs {
        static final String PROPERTY = "gosh.args";
        /** Where the JLine shell looks for {@code etc/gosh_profile} before its own. */
        static final String HOME = "gosh.home";
        /** Interactive: a console on the terminal; end of input (Ctrl-D) stops the framework, so the launcher exits. */
        static final String INTERACTIVE = "";
        /** Piped: no console, the launcher reads standard input itself. */
        static final String PIPED = "--nointeractive";
        /** The console's profile, a resource of the launcher (the stock Felix carries it as etc/gosh_profile). */
        static final String PROFILE = "/gosh_profile";
        /** The command scopes a bare command name is looked up in, in order, as the profile sets them. */
        static final String SCOPE = "granary:gogo:*";

        private GoshArgs() {
        }

        /**
         * Writes the console's profile to {@code work/etc/gosh_profile}, where the JLine shell looks
         * first ({@link #HOME}). Piped, JLine is told to make a plain terminal without probing the
         * pipe (no warning that it could not make a system one); the shell then reads no input.
         */
        static void writeProfile(Path work, boolean interactive) throws IOException {
            Path etc = java.nio.file.Files.createDirectories(work.resolve("etc"));
            try (InputStream in = Launcher.class.getResourceAsStream(PROFILE)) {
                if (in == null) {
                    throw new IOException("the launcher jar has no " + PROFILE);
                }
                java.nio.file.Files.copy(in, etc.resolve("gosh_profile"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
            if (!interactive) {
                System.getProperties().putIfAbsent("org.jline.terminal.dumb", "true");
            }
        }
    }
}
