package granary.http;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import granary.api.spi.JobView;
import granary.api.spi.JobWhy;
import granary.api.spi.ReasonTally;
import java.util.Locale;

/**
 * {@code GET /api/v1/jobs/{id}/why}: the engine's why-not-scheduled ledger of a job's units, as data
 * and as the sentences {@code granary:why} prints (docs/api.md, "Why is my job not scheduled?").
 */
final class Why {

    private Why() {
    }

    static JsonObject of(JobView job, long now) {
        JobWhy w = JobWhy.of(job, now);
        JsonObject o = new JsonObject();
        o.addProperty("job", w.job());
        o.addProperty("queue", w.group());
        o.addProperty("state", w.state().name().toLowerCase(Locale.ROOT));
        o.addProperty("waitingSlots", w.waitingSlots());
        JsonArray units = new JsonArray();
        for (JobWhy.UnitWhy u : w.units()) {
            JsonObject uo = new JsonObject();
            uo.addProperty("unit", u.unit());
            uo.addProperty("desired", u.desired());
            uo.addProperty("granted", u.granted());
            uo.addProperty("waiting", u.remaining());
            if (u.remaining() > 0 && u.waitingSince() >= 0) {
                uo.addProperty("waitingMillis", Math.max(0, now - u.waitingSince()));
            }
            if (u.latest() != null) {
                uo.addProperty("latest", u.latest().name());
            }
            JsonArray reasons = new JsonArray();
            for (ReasonTally t : u.reasons()) {
                JsonObject r = t.last() == null ? new JsonObject() : Views.reason(t.last());
                r.addProperty("code", t.code().name());
                r.addProperty("count", t.count());
                r.addProperty("lastAgoMillis", Math.max(0, now - t.lastAtMillis()));
                reasons.add(r);
            }
            uo.add("reasons", reasons);
            units.add(uo);
        }
        o.add("units", units);
        o.add("sentences", Json.array(w.sentences()));
        return o;
    }
}
