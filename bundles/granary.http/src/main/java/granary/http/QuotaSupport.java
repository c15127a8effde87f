package granary.http;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import granary.api.spi.Policy;
import granary.api.spi.Reconfigurable;
import granary.codec.CodecException;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.QuotaTableCodec;
import granary.policy.quota.api.WorkerSpans;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The quota table as the API reads and loads it, in the article's format (docs/formats.md) through
 * the quota policy's own codec — the only class of this bundle that names the quota model, so that
 * the API runs (without these routes) where the quota policy is not installed.
 */
final class QuotaSupport {

    /** The policy whose settings are quota tables. */
    static final String POLICY = "quota";

    private QuotaSupport() {
    }

    /** The table in force in the article's format, or null if the quota policy has none or is not installed. */
    static String inForce(Policy p) {
        if (p instanceof Reconfigurable r && r.settings() instanceof QuotaTable t) {
            return QuotaTableCodec.write(t);
        }
        return null;
    }

    static String workerSpans(Policy p) {
        if (p instanceof Reconfigurable r && r.settings() instanceof QuotaTable t && t.workerSpans() != null) {
            return t.workerSpans().toString();
        }
        return null;
    }

    /** A table read from a request: the model, its text as written back, and its revision. */
    record Parsed(Object table, String text, String revision) {
    }

    /** Reads and validates a table from a request body, or a 400 listing every problem. */
    static Parsed read(String body, String workerSpans) {
        QuotaTable t = table(body, workerSpans);
        String text = QuotaTableCodec.write(t);
        return new Parsed(t, text, revision(text, t.workerSpans() == null ? null : t.workerSpans().toString()));
    }

    private static QuotaTable table(String body, String workerSpans) {
        WorkerSpans spans;
        try {
            spans = QuotaTableCodec.workerSpans(workerSpans);
        } catch (IllegalArgumentException e) {
            throw ApiException.badParameter("workerSpans", e.getMessage());
        }
        try {
            return QuotaTableCodec.read(new StringReader(body), "request body", spans);
        } catch (CodecException e) {
            throw ApiException.badRequest("the quota table has " + e.problems().size() + " problem(s); nothing changed",
                    e.problems());
        }
    }

    /** The revision of a table: a digest of its text and its WorkerSpans ({@code none} for no table). */
    static String revision(String tableText, String workerSpans) {
        if (tableText == null) {
            return "none";
        }
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(tableText.getBytes(StandardCharsets.UTF_8));
            d.update((byte) 0);
            d.update(String.valueOf(workerSpans).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    /** A dry run's or a load's answer: the diff against the table in force, and the revisions. */
    static JsonObject outcome(String before, String after, String beforeRev, String afterRev, List<String> notes, boolean dryRun) {
        JsonObject o = new JsonObject();
        o.addProperty("dryRun", dryRun);
        o.addProperty("valid", true);
        o.addProperty(dryRun ? "revision" : "previousRevision", beforeRev);
        o.addProperty(dryRun ? "newRevision" : "revision", afterRev);
        JsonElement from = before == null ? null : Json.read(before, "table in force");
        o.add("diff", JsonDiff.of(from, Json.read(after, "request body")));
        if (notes != null) {
            o.add("notes", Json.array(notes));
        }
        return o;
    }
}
