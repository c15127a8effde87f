package granary.bench.wire;

import granary.protocol.link.Tokens;
import granary.recovery.RecoveryOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The master under load: an external one, a child JVM (the runtime jar or {@link WireMaster}), or one in this JVM. */
abstract class MasterHandle implements AutoCloseable {

    /** The master's base URL. */
    abstract URI url();

    /** The master's process id (this JVM's when it runs here), or -1 when unknown. */
    abstract long pid();

    /** The {@code granary:wire} line, or null when the master cannot be asked. */
    abstract String wire();

    /** What the master is, for the report. */
    abstract String kind();

    @Override
    public abstract void close();

    /** Stops the master at once, without a goodbye: a child JVM is destroyed forcibly; one in this JVM is closed. */
    void kill() {
        close();
    }

    /** {@link WireMaster#recoveryLine()}, or null when the master cannot be asked. */
    String recovery() {
        return null;
    }

    /** Epoch ms the master's recovery window opened, or -1 when unknown. */
    long openedAt() {
        return -1;
    }

    /** Epoch ms the master stopped recovering, or -1 (not yet, or unknown). */
    long recoveredAt() {
        return -1;
    }

    /** Epoch ms the master's rebuild was first seen under way (its window was due), or -1. */
    long rebuildStartedAt() {
        return -1;
    }

    /** A master someone else runs. */
    static MasterHandle external(URI url, long pid) {
        return new MasterHandle() {
            URI url() {
                return url;
            }

            long pid() {
                return pid;
            }

            String wire() {
                return null;
            }

            String kind() {
                return "external " + url;
            }

            public void close() {
            }
        };
    }

    /** {@link WireMaster} in this JVM (the smoke test): its CPU and memory are this JVM's. */
    static MasterHandle here(Path secret) throws IOException {
        return here(secret, new InetSocketAddress("127.0.0.1", 0), RecoveryOptions.none());
    }

    /** {@link WireMaster} in this JVM on {@code listen}, with {@code recovery}'s window. */
    static MasterHandle here(Path secret, InetSocketAddress listen, RecoveryOptions recovery) throws IOException {
        WireMaster m = WireMaster.start(Tokens.fromFile(secret), listen, recovery);
        return new MasterHandle() {
            @Override
            String recovery() {
                return m.recoveryLine();
            }

            @Override
            long openedAt() {
                return m.openedAt;
            }

            @Override
            long recoveredAt() {
                return m.recoveredAt();
            }

            @Override
            long rebuildStartedAt() {
                return m.rebuildStartedAt();
            }

            URI url() {
                return m.url();
            }

            long pid() {
                return ProcessHandle.current().pid();
            }

            String wire() {
                return m.wireLine();
            }

            String kind() {
                return "ProtocolMaster + JdkHttpServer in the load generator's JVM";
            }

            public void close() {
                m.close();
            }
        };
    }

    /**
     * The runtime jar ({@code --demo=false --piped --listen=127.0.0.1:0 --secret=FILE}) when
     * {@code runtime} exists and takes those options; otherwise {@link WireMaster} in a child JVM.
     */
    static MasterHandle child(Path runtime, Path secret, List<String> jvm) throws IOException {
        return child(runtime, secret, jvm, null);
    }

    /**
     * {@link #child(Path, Path, List)} pinned to {@code cpus} ({@code taskset -c CPUS java ...}; the
     * process id stays the JVM's, as taskset execs it), or not pinned when {@code cpus} is null.
     */
    static MasterHandle child(Path runtime, Path secret, List<String> jvm, String cpus) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> prefix = cpus == null ? List.of() : List.of("taskset", "-c", cpus);
        if (runtime != null && Files.isRegularFile(runtime)) {
            List<String> cmd = new ArrayList<>(prefix);
            cmd.add(java);
            cmd.addAll(jvm);
            cmd.addAll(List.of("-jar", runtime.toString(), "--demo=false", "--piped", "--listen=127.0.0.1:0", "--secret=" + secret));
            try {
                return new Child(cmd, "runtime " + runtime);
            } catch (IOException ex) {
                System.err.println("wire: the runtime did not come up (" + ex.getMessage() + "); using WireMaster in a child JVM");
            }
        }
        return wireMaster(secret, jvm, List.of(), prefix);
    }

    /**
     * The runtime jar in a child JVM ({@code --demo=false --piped --secret=FILE} and {@code args}, e.g.
     * {@code --listen=}, {@code --config=granary.recovery:windowSeconds=}), pinned to {@code cpus} unless
     * null. Its recovery times come from its console's {@code granary:recovery}.
     */
    static MasterHandle runtime(Path runtime, Path secret, List<String> jvm, String cpus, List<String> args) throws IOException {
        if (!Files.isRegularFile(runtime)) {
            throw new IOException("no runtime jar at " + runtime + " (mvn -DskipTests package builds it)");
        }
        List<String> cmd = new ArrayList<>(cpus == null ? List.of() : List.of("taskset", "-c", cpus));
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvm);
        cmd.addAll(List.of("-jar", runtime.toString(), "--demo=false", "--piped", "--secret=" + secret));
        cmd.addAll(args);
        return new Child(cmd, "runtime " + runtime);
    }

    /** {@link WireMaster} in a child JVM with {@code args} (e.g. {@code --listen=}, {@code --recovery-window=}). */
    static MasterHandle wireMaster(Path secret, List<String> jvm, List<String> args) throws IOException {
        return wireMaster(secret, jvm, args, List.of());
    }

    private static MasterHandle wireMaster(Path secret, List<String> jvm, List<String> args, List<String> prefix) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(prefix);
        cmd.add(java);
        cmd.addAll(jvm);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), WireMaster.class.getName(), "--secret=" + secret));
        cmd.addAll(args);
        return new Child(cmd, "WireMaster (ProtocolMaster + JdkHttpServer) in a child JVM");
    }

    /** {@code cmd} with this JVM's {@code java.io.tmpdir} given to the child after {@code java}, unless it sets its own. */
    private static List<String> withTmpdir(List<String> cmd) {
        if (cmd.stream().anyMatch(c -> c.startsWith("-Djava.io.tmpdir="))) {
            return cmd;
        }
        List<String> out = new ArrayList<>(cmd);
        for (int i = 0; i < out.size(); i++) {
            if (out.get(i).endsWith("java")) {
                out.add(i + 1, "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
                break;
            }
        }
        return out;
    }

    private static final class Child extends MasterHandle {
        private static final Pattern LISTENING = Pattern.compile("granary: listening on (\\S+)");
        private static final Pattern OPENED = Pattern.compile("granary: window open at (\\d+)");
        private static final Pattern RECOVERED = Pattern.compile("granary: recovered at (\\d+)");
        private static final Pattern REBUILDING = Pattern.compile("granary: rebuild started at (\\d+)");
        private volatile long rebuildStartedAt = -1;
        private volatile long openedAt = -1;
        private volatile long recoveredAt = -1;
        private final Thread reaper;
        private final Process process;
        private final Writer stdin;
        private final BlockingQueue<String> stdout = new LinkedBlockingQueue<>();
        private final ArrayDeque<String> stderrTail = new ArrayDeque<>();
        private final URI url;
        private final String kind;

        Child(List<String> cmd, String kind) throws IOException {
            this.kind = kind;
            process = new ProcessBuilder(withTmpdir(cmd)).start();
            // should this JVM end without closing the handle, the child goes too (it also ends on end of input)
            reaper = new Thread(process::destroyForcibly, "wire-master-reaper");
            Runtime.getRuntime().addShutdownHook(reaper);
            stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            CompletableFuture<URI> listening = new CompletableFuture<>();
            daemon("wire-master-stdout", () -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null; ) {
                        stdout.add(line);
                    }
                } catch (IOException ex) {
                    // the child ended
                }
            });
            // all of the child's standard error, for a run that went wrong (beside the run's temporary files)
            java.nio.file.Path errFile = java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "master-" + process.pid() + ".err");
            System.err.println("wire: the master's standard error goes to " + errFile);
            daemon("wire-master-stderr", () -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8));
                     Writer errLog = java.nio.file.Files.newBufferedWriter(errFile, StandardCharsets.UTF_8)) {
                    for (String line; (line = r.readLine()) != null; ) {
                        errLog.write(line);
                        errLog.write('\n');
                        errLog.flush();
                        synchronized (stderrTail) {
                            stderrTail.add(line);
                            if (stderrTail.size() > 40) {
                                stderrTail.poll();
                            }
                        }
                        Matcher m = LISTENING.matcher(line);
                        if (m.find()) {
                            listening.complete(URI.create(m.group(1)));
                        }
                        Matcher o = OPENED.matcher(line);
                        if (o.find()) {
                            openedAt = Long.parseLong(o.group(1));
                        }
                        Matcher rb = REBUILDING.matcher(line);
                        if (rb.find()) {
                            rebuildStartedAt = Long.parseLong(rb.group(1));
                        }
                        Matcher rc = RECOVERED.matcher(line);
                        if (rc.find()) {
                            recoveredAt = Long.parseLong(rc.group(1));
                        }
                    }
                } catch (IOException ex) {
                    // the child ended
                }
                listening.completeExceptionally(new IOException("exited before listening"));
            });
            try {
                url = listening.get(90, TimeUnit.SECONDS);
            } catch (Exception ex) {
                process.destroyForcibly();
                String tail;
                synchronized (stderrTail) {
                    tail = String.join("\n  ", stderrTail);
                }
                throw new IOException(kind + ": " + ex.getMessage() + "; its stderr:\n  " + tail, ex);
            }
        }

        URI url() {
            return url;
        }

        long pid() {
            return process.pid();
        }

        String kind() {
            return kind;
        }

        String wire() {
            return ask("granary:wire", "agents=");
        }

        @Override
        String recovery() {
            return ask("granary:recovery", "recovering=");
        }

        // WireMaster says these on standard error as they happen; the runtime's granary:recovery says them when asked

        @Override
        long openedAt() {
            return openedAt > 0 ? openedAt : fromRecovery("openedAt");
        }

        @Override
        long recoveredAt() {
            return recoveredAt > 0 ? recoveredAt : fromRecovery("recoveredAt");
        }

        @Override
        long rebuildStartedAt() {
            return rebuildStartedAt > 0 ? rebuildStartedAt : fromRecovery("rebuildStartedAt");
        }

        /** {@code key}'s value in the console's recovery line, or -1 (not there, or not said). */
        private long fromRecovery(String key) {
            String line = recovery();
            Matcher m = line == null ? null : Pattern.compile("\\b" + key + "=(-?\\d+)").matcher(line);
            return m != null && m.find() ? Long.parseLong(m.group(1)) : -1;
        }

        @Override
        void kill() {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            unhook();
        }

        private void unhook() {
            try {
                Runtime.getRuntime().removeShutdownHook(reaper);
            } catch (IllegalStateException ex) {
                // shutting down already
            }
        }

        /** Sends {@code command} on the child's input; its answer line from {@code marker} on (20 s at most), or null. */
        private synchronized String ask(String command, String marker) {
            try {
                stdout.clear();
                stdin.write(command + "\n");
                stdin.flush();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                while (System.nanoTime() < deadline) {
                    String line = stdout.poll(1, TimeUnit.SECONDS);
                    if (line != null && line.contains(marker)) {
                        return line.substring(line.indexOf(marker));
                    }
                }
            } catch (IOException ex) {
                return null;
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            return null;
        }

        public void close() {
            try {
                stdin.close(); // end of piped input: the runtime and WireMaster stop
            } catch (IOException ex) {
                // gone already
            }
            try {
                if (!process.waitFor(15, TimeUnit.SECONDS)) {
                    process.destroy();
                    if (!process.waitFor(5, TimeUnit.SECONDS)) {
                        process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                    }
                }
            } catch (InterruptedException ex) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            unhook();
        }
    }

    private static void daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
    }
}
