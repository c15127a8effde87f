package granary.conformance;

/**
 * What the wire does to messages, per message and direction.
 *
 * @param drop      chance that a message is lost
 * @param duplicate chance that a message arrives twice (the copy later)
 * @param maxDelay  longest extra delay in ms; delays differ per message, so messages also overtake each other
 */
public record Faults(double drop, double duplicate, long maxDelay) {

    public static final Faults NONE = new Faults(0, 0, 0);

    public Faults {
        if (drop < 0 || drop >= 1 || duplicate < 0 || duplicate >= 1 || maxDelay < 0) {
            throw new IllegalArgumentException("drop and duplicate are chances in [0, 1), maxDelay at least 0; got "
                    + drop + ", " + duplicate + ", " + maxDelay);
        }
    }

    @Override
    public String toString() {
        return this.equals(NONE) ? "none" : "drop " + drop + ", duplicate " + duplicate + ", delay up to " + maxDelay + " ms";
    }
}
