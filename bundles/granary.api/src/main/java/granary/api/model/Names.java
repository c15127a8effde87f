package granary.api.model;

/** The rule for names of nodes, rooms, jobs, units, groups and policies. */
public final class Names {

    /** The rule in words, for error messages. */
    public static final String RULE = "use letters, digits, '.', '_', '-', ':' or '@' (no spaces, at most 200 characters)";

    private Names() {
    }

    /** True if {@code s} is a valid name. */
    public static boolean isValid(String s) {
        if (s == null || s.isEmpty() || s.length() > 200) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(Character.isLetterOrDigit(c) || c == '.' || c == '_' || c == '-' || c == ':' || c == '@')) {
                return false;
            }
        }
        return true;
    }
}
