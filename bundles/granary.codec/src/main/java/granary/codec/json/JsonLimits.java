package granary.codec.json;

/**
 * What {@link JsonReader} accepts at most; a document beyond a limit is refused with a message
 * naming the limit, not read half-way or into an out-of-memory error.
 *
 * @param maxBytes       size of the input in bytes
 * @param maxDepth       nesting of arrays and objects
 * @param maxStringChars characters of one string (keys included), after unescaping
 * @param maxNumberChars characters of one number's text
 */
public record JsonLimits(long maxBytes, int maxDepth, int maxStringChars, int maxNumberChars) {

    /** 64 MiB, depth 64, strings of 65,536 characters, numbers of 1,000 characters. */
    public static final JsonLimits DEFAULT = new JsonLimits(64L << 20, 64, 65_536, 1_000);
}
