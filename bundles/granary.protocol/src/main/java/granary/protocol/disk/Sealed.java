package granary.protocol.disk;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A file that says when it is damaged: one header line, then the body.
 * <pre>
 * &lt;magic&gt; format=&lt;N&gt; bytes=&lt;body length&gt; sha256=&lt;hex of the body&gt;
 * &lt;body&gt;
 * </pre>
 * The length finds a torn file (truncated or extended), the hash a changed byte. A file that fails
 * either check is never half loaded: {@link #load} moves it aside to {@code <name>.corrupt-<millis>}
 * and says why. Written with {@link Disk#replace} (never half written). The agent's cap checkpoint
 * and the job master client's hint checkpoint use it (docs/recovery.md).
 */
public final class Sealed {

    /** The file is damaged; {@link #getMessage()} says how, in words. */
    public static final class Damaged extends Exception {
        private static final long serialVersionUID = 1L;

        Damaged(String message) {
            super(message);
        }
    }

    /**
     * What {@link #load} found: the body (null if there was no file, or it was damaged), and for a
     * damaged file what was wrong and where it was moved.
     */
    public record Loaded(byte[] body, String damage, String movedTo) {
    }

    private final Disk disk;
    private final String name;
    private final String magic;
    private final int format;

    /**
     * @param magic  the first word of the header, naming what the file holds (no spaces)
     * @param format the version of the body's format this code reads and writes
     */
    public Sealed(Disk disk, String name, String magic, int format) {
        this.disk = disk;
        this.name = name;
        this.magic = magic;
        this.format = format;
    }

    /** Where the file is, for messages. */
    public String where() {
        return disk.where(name);
    }

    /** Writes {@code body}, durably (forced to disk before this returns). */
    public void store(byte[] body) throws IOException {
        byte[] header = (magic + " format=" + format + " bytes=" + body.length + " sha256=" + sha256(body) + "\n")
                .getBytes(StandardCharsets.UTF_8);
        byte[] all = new byte[header.length + body.length];
        System.arraycopy(header, 0, all, 0, header.length);
        System.arraycopy(body, 0, all, header.length, body.length);
        disk.replace(name, all, true);
    }

    /** The body as written, or null if there is no file. @throws Damaged naming what is wrong */
    public byte[] read() throws IOException, Damaged {
        byte[] all = disk.read(name);
        if (all == null) {
            return null;
        }
        int nl = -1;
        for (int i = 0; i < all.length; i++) {
            if (all[i] == '\n') {
                nl = i;
                break;
            }
        }
        if (nl < 0) {
            throw new Damaged("no header line (expected '" + magic + " format=" + format + " bytes=N sha256=HEX'), "
                    + all.length + " bytes in all");
        }
        String[] h = new String(all, 0, nl, StandardCharsets.UTF_8).split(" ");
        if (h.length != 4 || !h[0].equals(magic) || !h[1].startsWith("format=") || !h[2].startsWith("bytes=")
                || !h[3].startsWith("sha256=")) {
            throw new Damaged("the header is not '" + magic + " format=N bytes=N sha256=HEX'");
        }
        if (!h[1].equals("format=" + format)) {
            throw new Damaged(magic + " " + h[1] + " is not supported; this code reads format=" + format);
        }
        long declared;
        try {
            declared = Long.parseLong(h[2].substring(6));
        } catch (NumberFormatException ex) {
            throw new Damaged("the header's byte count '" + h[2].substring(6) + "' is not a whole number");
        }
        int actual = all.length - nl - 1;
        if (declared != actual) {
            throw new Damaged("torn: the header declares " + declared + " bytes of body, the file holds " + actual);
        }
        byte[] body = new byte[actual];
        System.arraycopy(all, nl + 1, body, 0, actual);
        String sum = sha256(body);
        if (!MessageDigest.isEqual(sum.getBytes(StandardCharsets.UTF_8), h[3].substring(7).getBytes(StandardCharsets.UTF_8))) {
            throw new Damaged("checksum mismatch: the header says sha256=" + h[3].substring(7) + ", the body hashes to " + sum);
        }
        return body;
    }

    /**
     * Reads the file; a damaged one is moved aside to {@code <name>.corrupt-<nowMillis>} and
     * reported, never half loaded. {@code check} may reject a body whose hash matches but whose
     * content does not read (it throws {@link Damaged} too).
     */
    public Loaded load(long nowMillis, BodyCheck check) throws IOException {
        try {
            byte[] body = read();
            if (body != null) {
                check.accept(body);
            }
            return new Loaded(body, null, null);
        } catch (Damaged ex) {
            String aside = name + ".corrupt-" + nowMillis;
            try {
                disk.move(name, aside);
            } catch (IOException full) {
                // Not loaded all the same; it stays where it is, and is written over with the next good state.
                return new Loaded(null, ex.getMessage(), disk.where(name) + " (could not be moved aside: " + full.getMessage() + ")");
            }
            return new Loaded(null, ex.getMessage(), disk.where(aside));
        }
    }

    /** Checks a body whose checksum matched; throws {@link Damaged} if its content is not valid. */
    @FunctionalInterface
    public interface BodyCheck {
        void accept(byte[] body) throws Damaged;
    }

    /** A {@link Damaged} for a body that reads wrong, for {@link BodyCheck}s. */
    public static Damaged damaged(String message) {
        return new Damaged(message);
    }

    static String sha256(byte[] b) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
        } catch (NoSuchAlgorithmException ex) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", ex);
        }
    }
}
