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
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The tokens that authenticate peers and the API's users (docs/security.md, "Tokens"). The master
 * holds a secret file of one or more keys; a token is an identity, what it is issued under, and a
 * MAC of both under one of the keys:
 * {@code agent/n7.k1~<issued ms>~<expires ms, 0: never>.<base64url HMAC-SHA256>}. The master checks
 * a token without keeping a list, and a token proves one identity only: an agent's token speaks for
 * its own node and no other. An operator issues tokens with the master's
 * {@code --issue-token=agent/n7} (optionally {@code --expires=30d}).
 *
 * <p>Keys and rotation: each line of the secret file is {@code ID=<base64>} (a file of one bare
 * base64 line, as older masters wrote, is one key); the first key issues, every key listed is
 * accepted. Rotating: put a new key first, issue new tokens, then remove the old line — the file is
 * read again within a second of a change, no restart. Revocation: a token's id (the start of its
 * SHA-256, {@link #id}) listed in the revocation file ({@code <secret>.revoked}) is refused from the
 * next second on. Tokens of the older form {@code agent/n7.<MAC of the identity>} are still taken
 * under any key; they never expire.
 */
public final class Tokens {

    /** Bytes of secret a new key gets. */
    public static final int SECRET_BYTES = 32;
    /** Hex characters of a token's id. */
    public static final int ID_CHARS = 16;
    /** How often the files are looked at for a change, at most. */
    static final long RELOAD_MILLIS = 1_000;

    private static final java.util.regex.Pattern KEY_LINE = java.util.regex.Pattern.compile("([A-Za-z][A-Za-z0-9_-]{0,31})=([A-Za-z0-9+/]\\S*)");
    private static final java.util.regex.Pattern META = java.util.regex.Pattern.compile("([A-Za-z][A-Za-z0-9_-]{0,31})~(\\d{1,19})~(\\d{1,19})");

    /** One key: its id and a MAC per thread (making one costs more than using it, and checks run on many threads). */
    private static final class Key {
        final String id;
        final ThreadLocal<Mac> macs;

        Key(String id, byte[] secret) {
            if (secret.length < 16) {
                throw new IllegalArgumentException("a token secret needs at least 16 bytes, got " + secret.length);
            }
            this.id = id;
            byte[] copy = secret.clone();
            this.macs = ThreadLocal.withInitial(() -> newMac(copy));
        }

        byte[] mac(String text) {
            return macs.get().doFinal(text.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** What the files said when last read: the keys (the first issues) and the revoked token ids. */
    private record State(List<Key> keys, Set<String> revoked, long secretStamp, long revokedStamp) {
    }

    private final Path secretFile;
    private final Path revokedFile;
    private final java.util.function.LongSupplier clock;
    private volatile State state;
    private volatile long checkedAt;

    /** Tokens of one key held in memory (tests, tools): never read again, nothing revoked. */
    public Tokens(byte[] secret) {
        this(List.of(new Key("k0", secret)), null, null, System::currentTimeMillis);
    }

    private Tokens(List<Key> keys, Path secretFile, Path revokedFile, java.util.function.LongSupplier clock) {
        this.secretFile = secretFile;
        this.revokedFile = revokedFile;
        this.clock = clock;
        this.state = new State(keys, Set.of(), stamp(secretFile), stamp(revokedFile));
    }

    /**
     * The keys in {@code file}, read again within a second of a change, and the revoked tokens in
     * {@code file.revoked}. If the file does not exist a new key is written there first, readable
     * by its owner only where the file system allows it.
     *
     * @throws IOException if it cannot be read or created, or holds no valid key (the message says which)
     */
    public static Tokens fromFile(Path file) throws IOException {
        return fromFile(file, System::currentTimeMillis);
    }

    /** The same on {@code clock} (expiry, and when to look at the files again). */
    static Tokens fromFile(Path file, java.util.function.LongSupplier clock) throws IOException {
        if (!Files.exists(file)) {
            byte[] fresh = new byte[SECRET_BYTES];
            new SecureRandom().nextBytes(fresh);
            write(file, "k1=" + Base64.getEncoder().encodeToString(fresh) + "\n");
        }
        Path revoked = revokedFile(file);
        Tokens t = new Tokens(readKeys(file), file, revoked, clock);
        t.state = new State(t.state.keys(), readRevoked(revoked), stamp(file), stamp(revoked));
        return t;
    }

    /** Where the ids of revoked tokens of the secret {@code file} are listed. */
    public static Path revokedFile(Path file) {
        return file.resolveSibling(file.getFileName() + ".revoked");
    }

    /** Writes {@code text} to {@code file} atomically, readable by its owner only. */
    private static void write(Path file, String text) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, ".secret", ".tmp");
        try {
            try {
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
            } catch (UnsupportedOperationException ex) {
                // not a POSIX file system: the directory's permissions protect it
            }
            Files.writeString(tmp, text);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static List<Key> readKeys(Path file) throws IOException {
        List<Key> keys = new ArrayList<>();
        int n = 0;
        for (String raw : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
            n++;
            String line = raw.trim();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            java.util.regex.Matcher m = KEY_LINE.matcher(line);
            String id = m.matches() ? m.group(1) : "k0";
            String b64 = m.matches() ? m.group(2) : line;
            if (keys.stream().anyMatch(k -> k.id.equals(id))) {
                throw new IOException(file + ":" + n + ": key id " + id + " is listed twice");
            }
            try {
                keys.add(new Key(id, Base64.getDecoder().decode(b64)));
            } catch (IllegalArgumentException ex) {
                throw new IOException(file + ":" + n + ": not a key (ID=<base64 of at least 16 bytes>, or one line of base64): "
                        + ex.getMessage(), ex);
            }
        }
        if (keys.isEmpty()) {
            throw new IOException(file + ": no key in it (expected lines ID=<base64>, the first issuing tokens)");
        }
        return List.copyOf(keys);
    }

    private static Set<String> readRevoked(Path file) throws IOException {
        if (file == null || !Files.exists(file)) {
            return Set.of();
        }
        Set<String> ids = new java.util.HashSet<>();
        for (String raw : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            int hash = raw.indexOf('#');
            String id = (hash < 0 ? raw : raw.substring(0, hash)).trim();
            if (!id.isEmpty()) {
                ids.add(id.toLowerCase(java.util.Locale.ROOT));
            }
        }
        return Set.copyOf(ids);
    }

    /**
     * What the file holds, as a number that changes when it does: its length and a checksum of its bytes
     * (both files are a few lines). Its modification time and length XOR-ed together, as before, could
     * come out the same for two revocations a few milliseconds apart, and the second went unseen.
     */
    private static long stamp(Path file) {
        try {
            if (file == null || !Files.exists(file)) {
                return -1;
            }
            byte[] bytes = Files.readAllBytes(file);
            java.util.zip.CRC32 crc = new java.util.zip.CRC32();
            crc.update(bytes);
            return ((long) bytes.length << 32) | crc.getValue();
        } catch (IOException ex) {
            return -1;
        }
    }

    /** Reads the files again if a second passed since the last look and either changed; a file that no longer reads keeps what was read. */
    private State current() {
        long now = clock.getAsLong();
        if (secretFile == null || now - checkedAt < RELOAD_MILLIS) {
            return state;
        }
        synchronized (this) {
            if (now - checkedAt < RELOAD_MILLIS) {
                return state;
            }
            checkedAt = now;
            State s = state;
            long secretStamp = stamp(secretFile);
            long revokedStamp = stamp(revokedFile);
            if (secretStamp == s.secretStamp() && revokedStamp == s.revokedStamp()) {
                return s;
            }
            try {
                List<Key> keys = secretStamp == s.secretStamp() ? s.keys() : readKeys(secretFile);
                Set<String> revoked = revokedStamp == s.revokedStamp() ? s.revoked() : readRevoked(revokedFile);
                state = new State(keys, revoked, secretStamp, revokedStamp);
            } catch (IOException | RuntimeException ex) {
                System.err.println("granary: tokens: " + shown(String.valueOf(ex.getMessage()))
                        + "; keeping the keys and revocations read before");
                state = new State(s.keys(), s.revoked(), secretStamp, revokedStamp);
            }
            return state;
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
     * Puts a new random key first in the secret {@code file} (the next tokens are issued under it;
     * the keys after it are still taken until their lines are removed). Returns the new key's id.
     */
    public static String addKey(Path file) throws IOException {
        List<Key> keys = readKeys(file);
        int n = 1;
        java.util.Set<String> ids = new java.util.HashSet<>();
        keys.forEach(k -> ids.add(k.id));
        while (ids.contains("k" + n)) {
            n++;
        }
        byte[] fresh = new byte[SECRET_BYTES];
        new SecureRandom().nextBytes(fresh);
        StringBuilder text = new StringBuilder("k" + n + "=" + Base64.getEncoder().encodeToString(fresh) + "\n");
        for (String raw : Files.readAllLines(file, StandardCharsets.US_ASCII)) {
            String line = raw.trim();
            text.append(line.isEmpty() || line.startsWith("#") || KEY_LINE.matcher(line).matches() ? line : "k0=" + line).append('\n');
        }
        write(file, text.toString());
        return "k" + n;
    }

    /** Adds the id of {@code tokenOrId} (a token, or its id) to the revocation file of secret {@code file}; returns the id. */
    public static String revoke(Path file, String tokenOrId, String note) throws IOException {
        String id = tokenOrId.matches("[0-9a-fA-F]{" + ID_CHARS + "}") ? tokenOrId.toLowerCase(java.util.Locale.ROOT) : id(tokenOrId);
        Path revoked = revokedFile(file);
        String old = Files.exists(revoked) ? Files.readString(revoked, StandardCharsets.UTF_8) : "";
        write(revoked, old + (old.isEmpty() || old.endsWith("\n") ? "" : "\n") + id + "  # " + shown(note) + "\n");
        return id;
    }

    /** A token's id: the first {@value #ID_CHARS} hex characters of its SHA-256 (what a revocation names). */
    public static String id(String token) {
        return key(token).substring(0, ID_CHARS);
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

    /** The token for {@code who}, of the older form (no expiry): tests and tools. */
    public String issue(Sender who) {
        return issue(identity(who));
    }

    /**
     * The token of any {@code kind/name} identity of the older form, the MAC of the identity under
     * the issuing key, which never expires: a peer's ({@code agent/n7}) or an operator's of the
     * HTTP API ({@code admin/alice}, docs/api.md, "Authentication and roles").
     *
     * @throws IllegalArgumentException if {@code identity} is not {@code kind/name} with both parts non-empty
     */
    public String issue(String identity) {
        checkIdentity(identity);
        return identity + "." + b64(current().keys().get(0).mac(identity));
    }

    /**
     * A token of {@code identity} issued at {@code issuedAt} that expires at {@code expiresAt} (ms;
     * 0: never), under the issuing key.
     */
    public String issue(String identity, long issuedAt, long expiresAt) {
        checkIdentity(identity);
        Key k = current().keys().get(0);
        String signed = identity + "." + k.id + "~" + issuedAt + "~" + expiresAt;
        return signed + "." + b64(k.mac(signed));
    }

    private static void checkIdentity(String identity) {
        int slash = identity.indexOf('/');
        if (slash <= 0 || slash == identity.length() - 1 || identity.chars().anyMatch(c -> Character.isWhitespace(c) || c < 0x20)) {
            throw new IllegalArgumentException("an identity is KIND/NAME with no blank, got '" + shown(identity) + "'");
        }
    }

    /**
     * {@code s} with control characters escaped and cut at 200 characters. (The launcher runs this
     * class outside the OSGi runtime with only this bundle on its class path: no {@code Text}.)
     */
    private static String shown(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && i < 200; i++) {
            char c = s.charAt(i);
            b.append(c < 0x20 || c == 0x7f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)
                    ? String.format("\\u%04X", (int) c) : String.valueOf(c));
        }
        return s.length() > 200 ? b + "… (" + s.length() + " chars)" : b.toString();
    }

    private static String b64(byte[] b) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** The {@code kind/name} identity a token proves, or null if it is not a valid token of these keys (expired or revoked included). */
    public String verifiedIdentity(String token) {
        return refusal(token) == null ? identityOf(token) : null;
    }

    /**
     * Why {@code token} is refused, in words (expired, revoked, not of these keys), or null if it
     * is valid now.
     */
    public String refusal(String token) {
        if (token == null || token.isEmpty()) {
            return "no token";
        }
        State s = current();
        int dot = token.lastIndexOf('.');
        int slash = token.indexOf('/');
        if (dot < 0 || slash <= 0 || slash > dot) {
            return "not a token (expected KIND/NAME.<...>)";
        }
        byte[] given;
        try {
            given = Base64.getUrlDecoder().decode(token.substring(dot + 1));
        } catch (IllegalArgumentException ex) {
            return "not a token (its MAC is not base64url)";
        }
        String signed = token.substring(0, dot);
        int meta = signed.lastIndexOf('.');
        java.util.regex.Matcher m = meta < 0 ? null : META.matcher(signed.substring(meta + 1));
        boolean ok;
        long expires = 0;
        if (m != null && m.matches() && signed.indexOf('/') < meta) {
            String kid = m.group(1);
            Key k = s.keys().stream().filter(x -> x.id.equals(kid)).findFirst().orElse(null);
            if (k == null) {
                return "issued under key " + kid + ", which this master no longer holds (rotated out)";
            }
            ok = MessageDigest.isEqual(given, k.mac(signed));
            try {
                expires = Long.parseLong(m.group(3));
            } catch (NumberFormatException ex) {
                return "not a token (its expiry is not a number)";
            }
        } else {
            ok = s.keys().stream().anyMatch(k -> MessageDigest.isEqual(given, k.mac(signed)));
        }
        if (!ok) {
            return "not valid for this master (issued with another secret, or altered)";
        }
        if (expires > 0 && clock.getAsLong() >= expires) {
            return "expired at " + java.time.Instant.ofEpochMilli(expires) + "; issue a new one";
        }
        if (!s.revoked().isEmpty() && s.revoked().contains(id(token))) {
            return "revoked (id " + id(token) + ")";
        }
        return null;
    }

    /** The identity a token names (valid or not), or null. */
    private static String identityOf(String token) {
        int dot = token.lastIndexOf('.');
        String signed = token.substring(0, dot);
        int meta = signed.lastIndexOf('.');
        if (meta > signed.indexOf('/') && META.matcher(signed.substring(meta + 1)).matches()) {
            return signed.substring(0, meta);
        }
        return signed;
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
     * The key of the agent of {@code node} holding its token of the older form ({@link #issue(Sender)}):
     * the MAC of its identity under the issuing key. The master seals plan passes with the key of the
     * token the agent registered with ({@link #keyOf}); this is that key for such a token (tests, tools).
     */
    public byte[] agentKey(String node) {
        return current().keys().get(0).mac(identity(new Sender(Role.AGENT, node)));
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

    private static Mac newMac(byte[] secret) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(secret, "HmacSHA256"));
            return m;
        } catch (GeneralSecurityException ex) {
            throw new IllegalStateException("HmacSHA256 is missing from this JDK", ex);
        }
    }
}
