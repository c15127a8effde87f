package granary.protocol.link;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import granary.protocol.Role;
import granary.protocol.Sender;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** Plan passes (docs/security.md, "Plan passes"): who can make one, check one, use one where. */
class PlanPassTest {

    private final Tokens tokens = new Tokens("0123456789abcdef0123456789abcdef".getBytes(StandardCharsets.US_ASCII));
    private final PlanPass.Claims claims = new PlanPass.Claims("jm1", 1_700_000_000_123L, "n7", "k3y", 1_700_000_600_000L);

    @Test
    void theAgentChecksWithItsOwnTokenWhatTheMasterSealedWithItsSecret() {
        String pass = PlanPass.issue(tokens.agentKey("n7"), claims);
        byte[] agentKey = Tokens.keyOf(tokens.issue(new Sender(Role.AGENT, "n7")));
        assertArrayEquals(tokens.agentKey("n7"), agentKey);
        assertEquals(claims, PlanPass.verify(agentKey, pass));
    }

    @Test
    void anotherAgentCannotCheckOrUseIt() {
        String pass = PlanPass.issue(tokens.agentKey("n7"), claims);
        assertNull(PlanPass.verify(tokens.agentKey("n8"), pass));
    }

    @Test
    void aPassIsNoTokenAtTheMaster() {
        String pass = PlanPass.issue(tokens.agentKey("n7"), claims);
        assertNull(tokens.verify(pass));
        assertNull(tokens.verifiedIdentity(pass));
    }

    @Test
    void aChangedFieldOrMacIsRefused() {
        String pass = PlanPass.issue(tokens.agentKey("n7"), claims);
        int dot = pass.lastIndexOf('.');
        String fields = new String(Base64.getUrlDecoder().decode(pass.substring(PlanPass.PREFIX.length(), dot)), StandardCharsets.UTF_8);
        String longer = fields.replace("1700000600000", "1800000600000");
        String forged = PlanPass.PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(longer.getBytes(StandardCharsets.UTF_8))
                + pass.substring(dot);
        assertNull(PlanPass.verify(tokens.agentKey("n7"), forged));
        String badMac = pass.substring(0, pass.length() - 2) + (pass.endsWith("AA") ? "BB" : "AA");
        assertNull(PlanPass.verify(tokens.agentKey("n7"), badMac));
        String otherLife = fields.replace("1700000000123", "1700000000124");
        assertNull(PlanPass.verify(tokens.agentKey("n7"), PlanPass.PREFIX + Base64.getUrlEncoder().withoutPadding()
                .encodeToString(otherLife.getBytes(StandardCharsets.UTF_8)) + pass.substring(dot)), "the incarnation is sealed too");
        assertNull(PlanPass.verify(tokens.agentKey("n7"), "gp2."));
        assertNull(PlanPass.verify(tokens.agentKey("n7"), "gp2.!!.??"));
        assertNull(PlanPass.verify(tokens.agentKey("n7"), null));
        assertNull(PlanPass.verify(tokens.agentKey("n7"), "gp2." + "A".repeat(PlanPass.MAX_CHARS)));
    }

    @Test
    void aJobMastersOwnTokenIsNoPass() {
        String token = tokens.issue(new Sender(Role.JOB_MASTER, "jm1"));
        assertNull(PlanPass.verify(tokens.agentKey("n7"), token));
        assertNotEquals(token, PlanPass.issue(tokens.agentKey("n7"), claims));
    }
}
