package granary.agent;

import granary.api.model.Problem;
import granary.api.model.Text;
import granary.protocol.Plan;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Where a worker may run and what it may be given (docs/security.md, "Workers stay in their
 * place"): a plan's working directory must lie inside the agent's work dir or one of the roots an
 * operator named ({@code --work-roots}), symbolic links resolved; environment names are the
 * portable kind and values hold no NUL. An empty working directory is the worker's own directory
 * under the work dir.
 */
final class Confinement {

    /** A portable environment variable name. */
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    static final int MAX_ENV_NAME = 256;
    static final int MAX_ENV_VALUE = 32 * 1024;

    private Confinement() {
    }

    /** The environment variable in which a plan names the user its worker runs as (docs/agent.md, "Users"). */
    static final String USER_VARIABLE = "GRANARY_USER";

    /** The first reason {@code l} may not run here, or null. */
    static Problem check(String subject, String at, Plan.Launch l, Path workDir, List<Path> roots) {
        return check(subject, at, l, workDir, roots, WorkerPolicy.EMBEDDED);
    }

    /** The first reason {@code l} may not run here under {@code policy}, or null. */
    static Problem check(String subject, String at, Plan.Launch l, Path workDir, List<Path> roots, WorkerPolicy policy) {
        Problem dir = directory(subject, at + ".workingDirectory", l.workingDirectory(), workDir, roots);
        Problem env = dir != null ? dir : environment(subject, at + ".environment", l.environment());
        return env != null ? env : user(subject, at + ".environment." + USER_VARIABLE, l.environment().get(USER_VARIABLE), policy);
    }

    private static Problem user(String subject, String at, String asked, WorkerPolicy policy) {
        if (asked == null || asked.isEmpty() || asked.equals(policy.user())) {
            return null;
        }
        if ((asked.equals("root") || asked.equals("0")) && !policy.allowRoot()) {
            return Problem.of(subject, at, "asks for root: workers may not run as root on this node");
        }
        if (!policy.allowedUsers().contains(asked)) {
            return Problem.of(subject, at, "names the user " + Text.quote(asked) + ", which workers may not run as on this node"
                    + " (the agent's --worker-user " + (policy.user() == null ? "is not set" : "is " + policy.user())
                    + (policy.allowedUsers().isEmpty() ? "; no others are allowed" : "; also allowed: " + policy.allowedUsers())
                    + "; an operator allows more with --allowed-users)");
        }
        return null;
    }

    private static Problem directory(String subject, String at, String asked, Path workDir, List<Path> roots) {
        if (asked.isEmpty()) {
            return null;
        }
        Path p;
        try {
            p = Path.of(asked);
        } catch (InvalidPathException ex) {
            return Problem.of(subject, at, "is not a path: " + Text.quote(asked));
        }
        if (!p.isAbsolute()) {
            return Problem.of(subject, at, "must be an absolute path (or empty: the worker's own directory), got " + Text.quote(asked));
        }
        Path real = real(p);
        if (inside(real, workDir) || roots.stream().anyMatch(r -> inside(real, r))) {
            return null;
        }
        return Problem.of(subject, at, Text.quote(asked) + " is outside the directories workers may use on this node: the"
                + " agent's work dir " + workDir + (roots.isEmpty() ? "" : " and " + roots) + " (an operator adds more with"
                + " the agent's --work-roots)");
    }

    private static boolean inside(Path p, Path root) {
        return p.startsWith(real(root.toAbsolutePath()));
    }

    /** The path with symbolic links resolved where it exists, else as written, normalized. */
    private static Path real(Path p) {
        Path n = p.normalize();
        try {
            return Files.exists(n) ? n.toRealPath() : n;
        } catch (IOException ex) {
            return n;
        }
    }

    private static Problem environment(String subject, String at, Map<String, String> env) {
        for (Map.Entry<String, String> e : env.entrySet()) {
            String name = e.getKey();
            if (name.length() > MAX_ENV_NAME || !ENV_NAME.matcher(name).matches()) {
                return Problem.of(subject, at, "the name " + Text.quote(name) + " is not an environment variable name"
                        + " (letters, digits and _, not starting with a digit, at most " + MAX_ENV_NAME + " characters)");
            }
            String value = e.getValue();
            if (value == null || value.indexOf('\0') >= 0) {
                return Problem.of(subject, at + "." + name, "holds a NUL character, which no environment can carry");
            }
            if (value.length() > MAX_ENV_VALUE) {
                return new Problem(subject, at + "." + name, "is longer than the limit of " + MAX_ENV_VALUE + " characters",
                        (long) MAX_ENV_VALUE, (long) value.length());
            }
        }
        return null;
    }
}
