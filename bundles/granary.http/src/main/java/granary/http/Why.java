package granary.http;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import granary.api.spi.JobView;
import granary.api.spi.UnitView;

/** {@code GET /api/v1/jobs/{id}/why}: why a job's units wait (docs/api.md, "Why is my job not scheduled?"). */
final class Why {

    private Why() {
    }

    static JsonObject of(JobView job, long now) {
        JsonObject o = new JsonObject();
        o.addProperty("job", job.id());
        o.addProperty("queue", job.group());
        o.addProperty("state", Views.state(job));
        JsonArray units = new JsonArray();
        JsonArray sentences = new JsonArray();
        for (UnitView u : job.units()) {
            JsonObject uo = new JsonObject();
            uo.addProperty("unit", u.id().unit());
            uo.addProperty("desired", u.desired());
            uo.addProperty("granted", u.granted());
            uo.addProperty("waiting", u.remaining());
            if (u.remaining() > 0) {
                uo.addProperty("waitingMillis", Math.max(0, now - u.waitingSince()));
                if (u.waitReason() != null) {
                    uo.add("reason", Views.reason(u.waitReason()));
                }
                sentences.add("Unit " + u.id() + " waits for " + u.remaining() + " of " + u.desired() + " slots"
                        + (u.waitReason() == null ? "." : ": " + u.waitReason().message() + "."));
            }
            units.add(uo);
        }
        if (sentences.isEmpty()) {
            sentences.add("Job " + job.id() + " is fully placed: nothing waits.");
        }
        o.add("units", units);
        o.add("sentences", sentences);
        return o;
    }
}
