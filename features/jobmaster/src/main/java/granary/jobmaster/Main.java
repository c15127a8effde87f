package granary.jobmaster;

import granary.api.model.InvalidRequestException;
import granary.client.JobMasterClient;
import granary.protocol.link.LinkException;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
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
        if (s.restartable() != null) {
            options = options.withRestart(SelfRestart.spec(s.restartable(), args));
        }
        SampleJobMaster jm = new SampleJobMaster(s, out);
        try {
            jm.job(s.tasks()); // checks the job id, group and slot before anything is sent
        } catch (InvalidRequestException ex) {
            return fail(err, BAD_OPTIONS, ex.getMessage() + " (see --help)");
        }
        // The job goes with the first full request: a restarted job master resumes it, never cancels it.
        try (JobMasterClient client = JobMasterClient.connect(s.masters(), s.id(), token,
                System.currentTimeMillis(), options, jm, java.util.List.of(jm.job(s.tasks())))) {
            jm.start(client);
            java.util.concurrent.ScheduledExecutorService verifier = verifier(jm, s);
            SampleJobMaster.Outcome o;
            try {
                o = await(jm, s);
            } finally {
                if (verifier != null) {
                    verifier.shutdownNow();
                }
            }
            if (o.code() == TIMED_OUT) {
                cancelQuietly(client, s.job());
            }
            return o.message() == null ? o.code() : fail(err, o.code(), o.message());
        } catch (LinkException ex) {
            return switch (ex.kind()) {
                case UNAUTHORIZED -> fail(err, TOKEN_REFUSED, "the master refused the token of job-master/" + s.id()
                        + " from " + s.tokenFile() + ": " + ex.getMessage());
                case UNREACHABLE -> fail(err, UNREACHABLE, "the master at " + masters(s) + " is unreachable: " + ex.getMessage());
                case FENCED -> fail(err, FENCED, "job master " + s.id() + " was started again elsewhere: " + ex.getMessage());
                default -> fail(err, UNREACHABLE, "the master at " + masters(s) + " does not answer as a Granary master: " + ex.getMessage());
            };
        } catch (InvalidRequestException ex) {
            return fail(err, JOB_REFUSED, "the master refused job " + s.job() + ": " + ex.getMessage());
        }
    }

    /** Calls {@link SampleJobMaster#verify} every {@code --verify} seconds on a daemon thread; null with {@code --verify=0}. */
    private static java.util.concurrent.ScheduledExecutorService verifier(SampleJobMaster jm, Settings s) {
        if (s.verify().isZero()) {
            return null;
        }
        java.util.concurrent.ScheduledExecutorService e = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "granary-jobmaster-verify");
            t.setDaemon(true);
            return t;
        });
        long every = s.verify().toMillis();
        e.scheduleWithFixedDelay(() -> {
            try {
                jm.verify();
            } catch (RuntimeException ex) {
                System.err.println("granary-jobmaster: verifying the running workers failed: " + ex + " (trying again)");
            }
        }, every, every, TimeUnit.MILLISECONDS);
        return e;
    }

    private static SampleJobMaster.Outcome await(SampleJobMaster jm, Settings s) {
        try {
            return s.timeout().isZero() ? jm.outcome().get() : jm.outcome().get(s.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException ex) {
            TaskBoard b = jm.board();
            return new SampleJobMaster.Outcome(TIMED_OUT, "job " + s.job() + " did not finish within " + s.timeout().toSeconds()
                    + " s (done " + b.succeeded() + "/" + b.tasks() + ", running " + b.running() + ", failed " + b.failed().size() + ")");
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

    private static void cancelQuietly(JobMasterClient client, String job) {
        try {
            client.cancel(job);
        } catch (RuntimeException ex) {
            // best effort: the master may be gone
        }
    }

    /** The masters as the operator gave them, for messages. */
    static String masters(Settings s) {
        return s.masters().stream().map(URI::toString).collect(java.util.stream.Collectors.joining(","));
    }

    private static int fail(PrintStream err, int code, String message) {
        err.println("granary-jobmaster: " + message);
        err.flush();
        return code;
    }
}
