package granary.protocol.link;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What authorises a job master's plans at one agent, instead of the job master's own token
 * (docs/security.md, "Plan passes"). The master makes a pass for one incarnation of a job master and
 * one node; it names the job master and its incarnation, the node, the key of the job master's caps
 * there and when it expires, and
 * is sealed with a MAC under that node's agent key: the MAC of the agent's own token. So:
 * <ul>
 * <li>the agent checks it without asking the master (it knows its own token);</li>
 * <li>a job master cannot make one, nor change one (it does not know the agent's token);</li>
 * <li>an agent learns nothing it can use elsewhere: a pass is worth nothing at the master (it is not
 *     a token) nor at another agent (another key), and the job master's token never reaches it;</li>
 * <li>a pass outlives nothing: plans under it speak for its incarnation only, so a pass left over
 *     from an ended life cannot start a new one that would end the living one.</li>
 * </ul>
 * Text form: {@code gp2.<base64url fields>.<base64url MAC>}, the fields joined by line feeds
 * ({@code gp1}, without the incarnation, is no longer taken).
 */
public final class PlanPass {

    /** How a pass starts: its format's version. */
    public static final String PREFIX = "gp2.";
    /** Longest pass text taken: a header of a few hundred bytes, not more. */
    public static final int MAX_CHARS = 1024;

    /** What a genuine pass says. */
    public record Claims(String jobMaster, long incarnation, String node, String key, long expiresAt) {
    }

    private PlanPass() {
    }

    /** The pass for {@code claims}, sealed with {@code agentKey} (the MAC of the node's agent token). */
    public static String issue(byte[] agentKey, Claims claims) {
        for (String f : new String[] {claims.jobMaster(), claims.node(), claims.key()}) {
            if (f.indexOf('\n') >= 0) {
                throw new IllegalArgumentException("a pass field may not hold a line feed");
            }
        }
        byte[] fields = (claims.jobMaster() + "\n" + claims.incarnation() + "\n" + claims.node() + "\n" + claims.key() + "\n"
                + claims.expiresAt())
                .getBytes(StandardCharsets.UTF_8);
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        return PREFIX + b64.encodeToString(fields) + "." + b64.encodeToString(mac(agentKey, fields));
    }

    /**
     * What {@code pass} says if {@code agentKey} sealed it; null if it is not a pass, or was made or
     * changed by anyone else. Expiry is the caller's to check (it knows the time).
     */
    public static Claims verify(byte[] agentKey, String pass) {
        if (pass == null || pass.length() > MAX_CHARS || !pass.startsWith(PREFIX)) {
            return null;
        }
        int dot = pass.indexOf('.', PREFIX.length());
        if (dot < 0) {
            return null;
        }
        byte[] fields;
        byte[] given;
        try {
            fields = Base64.getUrlDecoder().decode(pass.substring(PREFIX.length(), dot));
            given = Base64.getUrlDecoder().decode(pass.substring(dot + 1));
        } catch (IllegalArgumentException ex) {
            return null;
        }
        if (!MessageDigest.isEqual(given, mac(agentKey, fields))) {
            return null;
        }
        String[] f = new String(fields, StandardCharsets.UTF_8).split("\n", -1);
        if (f.length != 5) {
            return null;
        }
        try {
            return new Claims(f[0], Long.parseLong(f[1]), f[2], f[3], Long.parseLong(f[4]));
        } catch (NumberFormatException ex) {
            return null;
        }
    }

    private static byte[] mac(byte[] key, byte[] data) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(key, "HmacSHA256"));
            return m.doFinal(data);
        } catch (GeneralSecurityException ex) {
            throw new IllegalStateException("HmacSHA256 is missing from this JDK", ex);
        }
    }
}
