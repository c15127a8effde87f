package granary.protocol.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import granary.protocol.Role;
import granary.protocol.Sender;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tokens (docs/security.md, "Tokens"): expiry, keys rotated without a restart, revocation, the older form. */
class TokensTest {

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(1_700_000_000_000L);

    private Tokens tokens(Path secret) throws IOException {
        return Tokens.fromFile(secret, now::get);
    }

    /** Past the time the files are looked at again (and the file's time stamp moves on). */
    private void later() {
        now.addAndGet(Tokens.RELOAD_MILLIS + 1);
    }

    @Test
    void aTokenExpiresAndSaysSo() throws Exception {
        Tokens t = tokens(dir.resolve("s"));
        String token = t.issue("agent/n1", now.get(), now.get() + 60_000);
        assertEquals(new Sender(Role.AGENT, "n1"), t.verify(token));
        now.addAndGet(60_000);
        assertNull(t.verify(token));
        assertTrue(t.refusal(token).startsWith("expired at "), t.refusal(token));
        String forever = t.issue("agent/n1", now.get(), 0);
        now.addAndGet(10L * 365 * 86_400_000);
        assertEquals("agent/n1", t.verifiedIdentity(forever));
    }

    @Test
    void anAlteredExpiryOrIdentityIsRefused() throws Exception {
        Tokens t = tokens(dir.resolve("s"));
        String token = t.issue("agent/n1", now.get(), now.get() + 60_000);
        String longer = token.replace("~" + (now.get() + 60_000) + ".", "~" + (now.get() + 600_000_000) + ".");
        assertTrue(!longer.equals(token));
        assertNull(t.verify(longer));
        assertNull(t.verify(token.replace("agent/n1", "agent/n2")));
        assertNull(t.verify(token.replace("agent/n1", "admin/n1")));
    }

    @Test
    void aNewKeyIssuesWhileTheOldStillVerifiesUntilItsLineIsRemovedWithoutARestart() throws Exception {
        Path secret = dir.resolve("s");
        Tokens master = tokens(secret);
        String old = master.issue("job-master/jm1", now.get(), 0);
        String oldForm = master.issue(new Sender(Role.AGENT, "n1"));

        String id = Tokens.addKey(secret);
        assertEquals("k2", id);
        later();
        String fresh = master.issue("job-master/jm1", now.get(), 0);
        assertTrue(fresh.contains(".k2~"), fresh);
        assertEquals("job-master/jm1", master.verifiedIdentity(old), "both keys are taken during the rotation");
        assertEquals("job-master/jm1", master.verifiedIdentity(fresh));
        assertEquals("agent/n1", master.verifiedIdentity(oldForm));

        List<String> lines = Files.readAllLines(secret);
        Files.write(secret, lines.subList(0, 1)); // the old key's line removed
        later();
        assertNull(master.verify(old));
        assertEquals("issued under key k1, which this master no longer holds (rotated out)", master.refusal(old));
        assertNull(master.verify(oldForm), "a token of the older form under the removed key");
        assertEquals("job-master/jm1", master.verifiedIdentity(fresh));
    }

    @Test
    void aRevokedTokenIsRefusedWithinASecondAndOthersOfTheSameIdentityAreNot() throws Exception {
        Path secret = dir.resolve("s");
        Tokens master = tokens(secret);
        String lost = master.issue("admin/ada", now.get(), 0);
        now.incrementAndGet();
        String kept = master.issue("admin/ada", now.get(), 0);
        String revokedId = Tokens.revoke(secret, lost, "laptop stolen");
        assertEquals(Tokens.id(lost), revokedId);
        later();
        assertNull(master.verifiedIdentity(lost));
        assertEquals("revoked (id " + revokedId + ")", master.refusal(lost));
        assertEquals("admin/ada", master.verifiedIdentity(kept));
        assertEquals(Tokens.id(kept), Tokens.revoke(secret, Tokens.id(kept), "by id"));
        later();
        assertNull(master.verifiedIdentity(kept));
    }

    /**
     * A change to the revocation list is seen even when the file keeps its length and its modification
     * time (two revocations within the file system's clock tick): the master compares what the file
     * holds, not when it was written. Before, a stamp of time and length let the suite's revocation
     * test fail now and then.
     */
    @Test
    void aRevocationListChangedWithinOneClockTickIsReadAgain() throws Exception {
        Path secret = dir.resolve("s");
        Tokens master = tokens(secret);
        String a = master.issue("admin/ada", now.get(), 0);
        now.incrementAndGet();
        String b = master.issue("admin/bob", now.get(), 0);
        Tokens.revoke(secret, a, "x");
        Path list = Tokens.revokedFile(secret);
        java.nio.file.attribute.FileTime written = Files.getLastModifiedTime(list);
        later();
        assertNull(master.verifiedIdentity(a));
        assertEquals("admin/bob", master.verifiedIdentity(b));
        String text = Files.readString(list);
        Files.writeString(list, text.replace(Tokens.id(a), Tokens.id(b)));   // the same length
        Files.setLastModifiedTime(list, written);                              // and the same time
        later();
        assertEquals("admin/ada", master.verifiedIdentity(a), "no longer revoked");
        assertNull(master.verifiedIdentity(b), "revoked now");
    }

    @Test
    void aSecretFileOfTheOlderFormStillReadsAndItsTokensVerify() throws Exception {
        Path secret = dir.resolve("old.secret");
        Files.writeString(secret, java.util.Base64.getEncoder().encodeToString("0123456789abcdef0123456789abcdef".getBytes()) + "\n");
        Tokens file = tokens(secret);
        Tokens memory = new Tokens("0123456789abcdef0123456789abcdef".getBytes());
        String token = memory.issue(new Sender(Role.AGENT, "n7"));
        assertEquals(new Sender(Role.AGENT, "n7"), file.verify(token));
        assertTrue(file.issue("agent/n7", now.get(), 0).contains(".k0~"));
        Tokens.addKey(secret);
        assertTrue(Files.readAllLines(secret).get(1).startsWith("k0="), "the bare line gets its id");
        later();
        assertEquals(new Sender(Role.AGENT, "n7"), file.verify(token));
    }

    @Test
    void aBrokenEditKeepsTheKeysReadBefore() throws Exception {
        Path secret = dir.resolve("s");
        Tokens master = tokens(secret);
        String token = master.issue("agent/n1", now.get(), 0);
        Files.writeString(secret, "k9=not base64 at all!\n");
        later();
        assertEquals("agent/n1", master.verifiedIdentity(token), "a master does not lock everyone out on a typo");
        IOException e = assertThrows(IOException.class, () -> Tokens.fromFile(secret));
        assertTrue(e.getMessage().contains(":1: not a key"), e.getMessage());
    }

    @Test
    void aNewSecretFileIsTheOwners() throws Exception {
        Path secret = dir.resolve("new.secret");
        tokens(secret);
        assertNull(Tokens.exposure(secret));
        assertTrue(Files.readString(secret).startsWith("k1="));
    }
}
