package granary.agent;

/**
 * What a health command's end says (docs/agent.md, "Node health"), as YARN reads a node health
 * script: a line of output that starts with {@code ERROR} makes the node unhealthy, with that line
 * as the reason; so does an exit code other than 0.
 */
final class HealthVerdict {

    private static final int MAX_REASON = 200;

    private HealthVerdict() {
    }

    /** Null if healthy, else the reason. */
    static String of(int exitCode, String output) {
        String last = "";
        for (String line : output.split("\n")) {
            String l = line.strip();
            if (l.startsWith("ERROR")) {
                return cut(l);
            }
            if (!l.isEmpty()) {
                last = l;
            }
        }
        if (exitCode != 0) {
            return cut("the health command exited with " + exitCode + (last.isEmpty() ? "" : ": " + last));
        }
        return null;
    }

    private static String cut(String s) {
        return s.length() <= MAX_REASON ? s : s.substring(0, MAX_REASON) + "…";
    }
}
