package granary.jobmaster;

import granary.api.model.Clock;
import granary.api.model.InvalidRequestException;
import granary.client.JobMasterClient;
import granary.protocol.disk.Disk;
import granary.protocol.disk.FileDisk;
import granary.protocol.link.HttpTransport;
import granary.protocol.link.LinkException;
import granary.protocol.link.ThreadLoop;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** {@code java -jar granary-jobmaster.jar --help}: the sample job master's command line and exit codes. */
public final class Main {

    static final int SUCCEEDED = 0;
    static final int TASKS_FAILED = 1;
    static final int BAD_OPTIONS = 2;
    static final int TOKEN_REFUSED = 3;
    static final int UNREACHABLE = 4;
    static final int TIMED_OUT = 5;
    static final int JOB_REFUSED = 6;
    /** The master declared this incarnation lost and started the job master again elsewhere (docs/recovery.md). */
    static final int FENCED = 7;

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(JobMasterClient.Options.defaults(), System.out, System.err, args));
    }

    /** Runs the job master; returns the exit code, having written the one-line reason of a failure to {@code err}. */
    static int run(JobMasterClient.Options options, PrintStream out, PrintStream err, String... args) {
        Settings s;
        String token;
        try {
            s = Settings.parse(args);
            if (s.help()) {
                out.println(Settings.USAGE);
                return SUCCEEDED;
            }
            token = readToken(s);
        } catch (IllegalArgumentException ex) {
            return fail(err, BAD_OPTIONS, ex.getMessage() + " (see --help)");
        }
        options = options.withConnectPatience(s.patience());
        if (s.restartable() != null) {
            options = options.withRestart(SelfRestart.spec(s.restartable(), args));
        }
        Disk state = s.state() == null ? null : new FileDisk(s.state());
        if (state != null) {
            options = options.withHints(state);
        }
        ThreadLoop loop = new ThreadLoop("granary-jobmaster " + s.id(), Clock.system(),
                ex -> line(err, "granary-jobmaster: internal error: " + ex));
        try {
            return run(s, token, options, loop, state, out, err);
        } finally {
            loop.close();
        }
    }

    private static int run(Settings s, String token, JobMasterClient.Options options, ThreadLoop loop, Disk state,
                           PrintStream out, PrintStream err) {
        SampleJobMaster jm = new SampleJobMaster(s, loop, state, l -> line(out, l), l -> line(err, l));
        JobMasterClient client;
        try {
            loop.call(() -> {
                try {
                    jm.load();  // checks the progress of a previous life; the job's id, group and slot are checked here too
                    jm.jobs();
                } catch (IOException ex) {
                    throw new java.io.UncheckedIOException(ex);
                }
                return null;
            }, Duration.ofSeconds(30));
            JobMasterClient.Options o = options;
            client = loop.call(() -> JobMasterClient.start(s.masters(), s.id(), token, System.currentTimeMillis(), o, jm,
                    jm.jobs(), loop, new HttpTransport(o.link().requestTimeout(), null)), Duration.ofSeconds(30));
        } catch (IllegalArgumentException ex) {
            return fail(err, BAD_OPTIONS, ex.getMessage() + " (see --help)");
        } catch (java.io.UncheckedIOException ex) {
            return fail(err, BAD_OPTIONS, "option --state: cannot read " + s.state() + ": " + ex.getCause().getMessage());
        } catch (TimeoutException ex) {
            return fail(err, UNREACHABLE, "the job master's loop did not start");
        }
        try {
            client.connected().get();
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return fail(err, UNREACHABLE, "interrupted while connecting");
        } catch (ExecutionException ex) {
            client.close();
            return connectFailed(s, ex.getCause(), err);
        }
        loop.execute(() -> jm.start(client));
        SampleJobMaster.Outcome o = await(jm, s, loop);
        loop.execute(jm::stop);
        if (o.code() == TIMED_OUT) {
            cancelQuietly(client, s.job());
        }
        client.close();
        if (state != null && (o.code() == SUCCEEDED || o.code() == TASKS_FAILED)) {
            forget(jm, state, s.state(), loop, err); // the job is over: a later run of it starts afresh
        }
        return o.message() == null ? o.code() : fail(err, o.code(), o.message());
    }

    /**
     * The job is over: its progress and the client's hints go, on the loop (after the client has closed, so no
     * hint is written after them), then the directory, if nothing else is in it.
     */
    private static void forget(SampleJobMaster jm, Disk state, Path dir, ThreadLoop loop, PrintStream err) {
        try {
            loop.call(() -> {
                jm.forgetProgress(state);
                return null;
            }, Duration.ofSeconds(10));
        } catch (TimeoutException ex) {
            line(err, "granary-jobmaster: the progress in " + dir + " was not removed within 10 s");
            return;
        }
        try {
            Files.deleteIfExists(dir);
        } catch (DirectoryNotEmptyException ex) {
            // files that are not the job master's stay, and so does their directory
        } catch (IOException ex) {
            line(err, "granary-jobmaster: cannot remove " + dir + ": " + ex.getMessage());
        }
    }

    private static int connectFailed(Settings s, Throwable why, PrintStream err) {
        if (why instanceof InvalidRequestException ex) {
            return fail(err, JOB_REFUSED, "the master refused job " + s.job() + ": " + ex.getMessage());
        }
        if (why instanceof LinkException ex) {
            return switch (ex.kind()) {
                case UNAUTHORIZED -> fail(err, TOKEN_REFUSED, "the master refused the token of job-master/" + s.id()
                        + " from " + s.tokenFile() + ": " + ex.getMessage());
                case FENCED -> fail(err, FENCED, "job master " + s.id() + " was started again elsewhere: " + ex.getMessage());
                default -> fail(err, UNREACHABLE, "the master at " + masters(s) + " is unreachable: " + ex.getMessage());
            };
        }
        return fail(err, UNREACHABLE, "cannot connect to the master at " + masters(s) + ": " + why);
    }

    private static SampleJobMaster.Outcome await(SampleJobMaster jm, Settings s, ThreadLoop loop) {
        CompletableFuture<SampleJobMaster.Outcome> f = jm.outcome();
        try {
            return s.timeout().isZero() ? f.get() : f.get(s.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException ex) {
            String state;
            try {
                state = loop.call(() -> {
                    TaskBoard b = jm.board();
                    return "done " + b.succeeded() + "/" + b.size() + ", running " + b.running() + ", failed " + b.failed().size();
                }, Duration.ofSeconds(5));
            } catch (TimeoutException busy) {
                state = "its state unknown";
            }
            return new SampleJobMaster.Outcome(TIMED_OUT, "job " + s.job() + " did not finish within " + s.timeout().toSeconds()
                    + " s (" + state + ")");
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return new SampleJobMaster.Outcome(TIMED_OUT, "interrupted while waiting for job " + s.job());
        } catch (ExecutionException ex) {
            throw new IllegalStateException(ex.getCause());
        }
    }

    private static String readToken(Settings s) {
        try {
            String t = Files.readString(s.tokenFile()).trim();
            if (t.isEmpty()) {
                throw new IllegalArgumentException("option --token-file: " + s.tokenFile() + " is empty");
            }
            return t;
        } catch (IOException ex) {
            throw new IllegalArgumentException("option --token-file: cannot read " + s.tokenFile() + ": " + ex);
        }
    }

    /** Cancels the job, waiting at most 5 s: the master may be gone. */
    private static void cancelQuietly(JobMasterClient client, String job) {
        try {
            client.cancel(job).get(5, TimeUnit.SECONDS);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException ex) {
            // best effort: the master may be gone
        }
    }

    /** The masters as the operator gave them, for messages. */
    static String masters(Settings s) {
        return s.masters().stream().map(URI::toString).collect(java.util.stream.Collectors.joining(","));
    }

    private static void line(PrintStream p, String line) {
        synchronized (p) {
            p.println(line);
            p.flush();
        }
    }

    private static int fail(PrintStream err, int code, String message) {
        line(err, "granary-jobmaster: " + message);
        return code;
    }
}
