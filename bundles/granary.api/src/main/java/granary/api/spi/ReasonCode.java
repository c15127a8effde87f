package granary.api.spi;

import java.util.List;

/**
 * Why something was not (or not yet) scheduled: the code of a {@link Reason}, with what it means in a
 * few words and what would help (docs/scheduling.md, "Why is my job not scheduled?").
 *
 * <p>The constants here are the engine's own codes, the ones any policy may also give. A policy with
 * a reason of its own (a quota limit, a locked node) makes its code with {@link #of} and lists it in
 * its {@link PolicyDeclaration} ({@code reason(...)}), so that adding a policy never changes this
 * class. Two codes are equal when their names are: two policies that both say {@code QUOTA} are
 * counted as one reason in a unit's ledger.
 */
public final class ReasonCode {

    /** The subject of the reason in a hint text: {@code "It gets more when work in {subject} releases slots."}. */
    public static final String SUBJECT = "{subject}";
    /** The subject with its first letter in capitals, to begin a sentence. */
    public static final String SUBJECT_CAPITAL = "{Subject}";

    /** No node has enough free resources for one slot. */
    public static final ReasonCode NO_FIT = of("NO_FIT", "no room", "It is placed when a node frees enough room"
            + " (slots released, a node added or enlarged); a smaller slot would fit sooner.");
    /** The node is blacklisted (globally or by the unit). */
    public static final ReasonCode BLACKLISTED = of("BLACKLISTED", "blacklisted", "Taking nodes off the global"
            + " blacklist (granary:unblacklist) or off the unit's own blacklist would give it room.");
    /** The node lacks labels the unit or its queue selects. */
    public static final ReasonCode LABELS = of("LABELS", "labels do not match", "More nodes with the labels it"
            + " selects, or a looser node selector, would give it room.");
    /** The unit holds its maximum number of slots on the node. */
    public static final ReasonCode MAX_PER_NODE = of("MAX_PER_NODE", "per-node maximum reached", "It holds its"
            + " maximum slots per node where there is room: more nodes with room, or a higher maxPerNode, would let it grow.");
    /** The node is not among the unit's locality preferences. */
    public static final ReasonCode LOCALITY = of("LOCALITY", "outside its locality preferences", "Its locality"
            + " preferences leave it no node with room; a ROOM or CLUSTER preference would let it run elsewhere.");
    /** No policy is in effect on an extension point the work needs. */
    public static final ReasonCode NO_POLICY = of("NO_POLICY", "no policy in effect", "Select a policy for that"
            + " extension point (granary:policies lists them, granary:policy <name> selects one).");
    /** An all-or-nothing gang has no placement for all its slots. */
    public static final ReasonCode NO_PLACEMENT = of("NO_PLACEMENT", "the gang does not fit whole", "A gang gets all"
            + " its slots at once and never holds part of them: it is placed when enough room is free together.");
    /** The request can never fit (larger than any node, the cluster or its queue). */
    public static final ReasonCode TOO_LARGE = of("TOO_LARGE", "too large", "It cannot be placed as it is: ask for a"
            + " smaller slot, or add a node large enough.");
    /** Another job must be scheduled first (an emergent or reserved target). */
    public static final ReasonCode BEHIND = of("BEHIND", "behind other work", "It waits until the work ahead of it is placed.");
    /** The named queue or group does not exist. */
    public static final ReasonCode UNKNOWN_GROUP = of("UNKNOWN_GROUP", "unknown group", "Move the job to a group that"
            + " exists (granary:move <job> <queue>).");
    /** Anything else; the message says what. */
    public static final ReasonCode OTHER = of("OTHER", "other", null);

    private static final List<ReasonCode> ENGINE = List.of(NO_FIT, BLACKLISTED, LABELS, MAX_PER_NODE, LOCALITY,
            NO_POLICY, NO_PLACEMENT, TOO_LARGE, BEHIND, UNKNOWN_GROUP, OTHER);

    private final String name;
    private final String meaning;
    private final String hint;

    private ReasonCode(String name, String meaning, String hint) {
        if (name == null || !name.matches("[A-Z][A-Z0-9_]*")) {
            throw new IllegalArgumentException("a reason code is upper-case letters, digits and '_', got '" + name + "'");
        }
        if (meaning == null || meaning.isBlank()) {
            throw new IllegalArgumentException("reason code " + name + ": its meaning is empty");
        }
        this.name = name;
        this.meaning = meaning;
        this.hint = hint;
    }

    /**
     * A code.
     *
     * @param name    upper case, {@code QUOTA}; what the API and the ledger show
     * @param meaning a few words: {@code "limit reached"}
     * @param hint    what would help, one or two sentences, where {@value #SUBJECT} (or {@value #SUBJECT_CAPITAL})
     *                stands for the reason's subject; null where nothing plain helps
     */
    public static ReasonCode of(String name, String meaning, String hint) {
        return new ReasonCode(name, meaning, hint);
    }

    /** The engine's own codes, in the order the engine looks for them. */
    public static List<ReasonCode> engineCodes() {
        return ENGINE;
    }

    public String name() {
        return name;
    }

    /** What the code means, in a few words. */
    public String meaning() {
        return meaning;
    }

    /** The hint as declared, with its placeholders; null if there is none. */
    public String hintText() {
        return hint;
    }

    /** What would help with a reason of this code about {@code subject}, or null where nothing plain does. */
    public String hint(String subject) {
        if (hint == null) {
            return null;
        }
        String s = subject == null ? "" : subject;
        String capital = s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
        return hint.replace(SUBJECT_CAPITAL, capital).replace(SUBJECT, s);
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof ReasonCode c && c.name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return name;
    }
}
