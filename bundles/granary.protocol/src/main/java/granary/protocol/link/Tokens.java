package granary.protocol.link;

import granary.protocol.Role;
import granary.protocol.Sender;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The tokens that authenticate peers. The master holds one secret (random bytes in a file); the
 * token of a peer is its identity and a MAC of that identity under the secret:
 * {@code agent/n7.<base64url HMAC-SHA256>}. The master checks a token without keeping a list,
 * and a token proves one identity only: an agent's token speaks for its own node and no other.
 * An operator issues tokens with the master's {@code --issue-token=agent/n7} (docs/protocol.md,
 * "Authentication"). Rotating the secret invalidates every token.
 */
public final class Tokens {

    /** Bytes of secret a new secret file gets. */
    public static final int SECRET_BYTES = 32;

    private final byte[] secret;
    /** A MAC per thread: making one costs more than using it, and checks run on many threads. */
    private final ThreadLocal<Mac> macs = ThreadLocal.withInitial(this::newMac);

    public Tokens(byte[] secret) {
        if (secret.length < 16) {
            throw new IllegalArgumentException("a token secret needs at least 16 bytes, got " + secret.length);
        }
        this.secret = secret.clone();
    }

    /**
     * The secret in {@code file} (base64, one line). If the file does not exist a new random secret
     * is written there first, readable by its owner only where the file system allows it.
     *
     * @throws IOException if it cannot be read or created, or holds no valid secret (the message says which)
     */
    public static Tokens fromFile(Path file) throws IOException {
        if (!Files.exists(file)) {
            byte[] fresh = new byte[SECRET_BYTES];
            new SecureRandom().nextBytes(fresh);
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, ".secret", ".tmp");
            try {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException ex) {
                // not a POSIX file system: the directory's permissions protect it
            }
            Files.writeString(tmp, Base64.getEncoder().encodeToString(fresh) + "\n");
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        }
        String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        try {
            return new Tokens(Base64.getDecoder().decode(text));
        } catch (IllegalArgumentException ex) {
            throw new IOException(file + ": not a token secret (one line of base64, at least 16 bytes): " + ex.getMessage(), ex);
        }
    }

    /**
     * The secret in {@code file}, which must exist: where a missing file is a mistyped path (issuing
     * tokens), a new secret would make tokens no master takes.
     *
     * @throws IOException naming the file if it is missing, cannot be read or holds no valid secret
     */
    public static Tokens fromExistingFile(Path file) throws IOException {
        if (!Files.exists(file)) {
            throw new IOException(file + " does not exist; a master makes its secret when it first starts (give the"
                    + " path it uses), or add --create-secret to make a new one here");
        }
        return fromFile(file);
    }

    /**
     * A warning if users other than the owner may read {@code file} (a secret's file must be the
     * master's alone: anyone who reads it can make every token); null if not, or if the file system
     * does not say.
     */
    public static String exposure(Path file) {
        try {
            java.util.Set<java.nio.file.attribute.PosixFilePermission> p = Files.getPosixFilePermissions(file);
            boolean others = p.contains(java.nio.file.attribute.PosixFilePermission.GROUP_READ)
                    || p.contains(java.nio.file.attribute.PosixFilePermission.OTHERS_READ);
            return others ? file + " is readable by other users (" + PosixFilePermissions.toString(p) + "): anyone who"
                    + " reads it can make every token; chmod 600 it" : null;
        } catch (IOException | UnsupportedOperationException ex) {
            return null;
        }
    }

    /** The token for {@code who}. */
    public String issue(Sender who) {
        return issue(identity(who));
    }

    /**
     * The token of any {@code kind/name} identity: a peer's ({@code agent/n7}) or an operator's of the
     * HTTP API ({@code admin/alice}, docs/api.md, "Authentication and roles").
     *
     * @throws IllegalArgumentException if {@code identity} is not {@code kind/name} with both parts non-empty
     */
    public String issue(String identity) {
        int slash = identity.indexOf('/');
        if (slash <= 0 || slash == identity.length() - 1 || identity.chars().anyMatch(Character::isWhitespace)) {
            throw new IllegalArgumentException("an identity is KIND/NAME with no blank, got '" + identity + "'");
        }
        return identity + "." + Base64.getUrlEncoder().withoutPadding().encodeToString(mac(identity));
    }

    /** The {@code kind/name} identity a token proves, or null if it is not a token of this secret. */
    public String verifiedIdentity(String token) {
        if (token == null) {
            return null;
        }
        int dot = token.lastIndexOf('.');
        int slash = token.indexOf('/');
        if (dot < 0 || slash <= 0 || slash > dot) {
            return null;
        }
        String identity = token.substring(0, dot);
        byte[] given;
        try {
            given = Base64.getUrlDecoder().decode(token.substring(dot + 1));
        } catch (IllegalArgumentException ex) {
            return null;
        }
        return MessageDigest.isEqual(given, mac(identity)) ? identity : null;
    }

    /** The peer a token proves, or null if it is not a token of this secret or not a peer's. */
    public Sender verify(String token) {
        String identity = verifiedIdentity(token);
        if (identity == null) {
            return null;
        }
        int slash = identity.indexOf('/');
        Role role = Role.ofWire(identity.substring(0, slash));
        String id = identity.substring(slash + 1);
        return role == null || id.isEmpty() ? null : new Sender(role, id);
    }

    /**
     * The key that seals the {@link PlanPass plan passes} for the agent of {@code node}: the MAC of
     * its token, which that agent knows and nobody else but the master.
     */
    public byte[] agentKey(String node) {
        return mac(identity(new Sender(Role.AGENT, node)));
    }

    /** The key a token holds (its MAC part, as {@link #agentKey} gives it for an agent's), or null if it has none. */
    public static byte[] keyOf(String token) {
        int dot = token == null ? -1 : token.lastIndexOf('.');
        if (dot < 0) {
            return null;
        }
        try {
            byte[] k = Base64.getUrlDecoder().decode(token.substring(dot + 1));
            return k.length == 0 ? null : k;
        } catch (IllegalArgumentException ex) {
            return null;
        }
    }

    /** The token in an {@code Authorization: Bearer <token>} header, or null. */
    public static String bearer(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        return authorization.substring(7).trim();
    }

    /**
     * The key of a token: a hash an agent is given in a {@link granary.protocol.Cap} so that it can
     * check the job master's token on a plan without being able to make one.
     */
    public static String key(String token) {
        try {
            byte[] h = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(h);
        } catch (GeneralSecurityException ex) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", ex);
        }
    }

    /** The identity text of a peer, {@code role/id}. */
    public static String identity(Sender who) {
        return who.role().wire() + "/" + who.id();
    }

    /** Reads {@code agent/n7} (or {@code job-master/jm1}) into a sender. @throws IllegalArgumentException naming the forms */
    public static Sender parseIdentity(String text) {
        int slash = text.indexOf('/');
        Role role = slash < 0 ? null : Role.ofWire(text.substring(0, slash));
        if (role == null || slash == text.length() - 1) {
            throw new IllegalArgumentException("expected agent/NODE, job-master/NAME or master/NAME, got '" + text + "'");
        }
        return new Sender(role, text.substring(slash + 1));
    }

    private byte[] mac(String identity) {
        return macs.get().doFinal(identity.getBytes(StandardCharsets.UTF_8));
    }

    private Mac newMac() {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(secret, "HmacSHA256"));
            return m;
        } catch (GeneralSecurityException ex) {
            throw new IllegalStateException("HmacSHA256 is missing from this JDK", ex);
        }
    }
}
