package granary.protocol;

import granary.api.model.JobSpec;
import granary.api.model.Problem;
import granary.api.model.UnitId;
import granary.codec.JobCodec;
import granary.codec.json.JsonArray;
import granary.codec.json.JsonObject;
import granary.codec.json.JsonPosition;
import granary.codec.json.JsonReader;
import granary.codec.json.JsonValue;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Each message type as a JSON object; the inverse of {@link MessageReader}. Every field is written, lists even when empty. */
final class MessageWriter {

    private MessageWriter() {
    }

    static JsonObject write(Message m) {
        // Java 17: no patterns in switch yet; the sealed Message keeps this list complete.
        if (m instanceof Register r) {
            return register(r);
        }
        if (m instanceof Heartbeat h) {
            return heartbeat(h);
        }
        if (m instanceof Request r) {
            return request(r);
        }
        if (m instanceof Hint h) {
            JsonObject.Builder o = JsonObject.builder().put("placements", list(h.placements(), p -> {
                JsonObject.Builder x = JsonObject.builder().put("unit", unit(p.unit())).put("node", p.node()).put("slots", p.slots())
                        .put("endpoint", p.endpoint());
                if (p.epoch() > 0) {
                    x.put("epoch", p.epoch());
                }
                return x.build();
            }))
                    .put("exits", list(h.exits(), x -> stopped(oom(JsonObject.builder().put("unit", unit(x.unit()))
                            .put("node", x.node()).put("slot", x.slot()).put("exitCode", x.exitCode()), x.oom()), x.exitCode(), x.stopped())));
            if (!h.nodes().isEmpty()) {
                o.put("nodes", list(h.nodes(), n -> JsonObject.builder().put("node", n.node()).put("state", n.state()).build()));
            }
            if (h.through() > 0) {
                o.put("through", h.through());
            }
            if (!h.passes().isEmpty()) {
                o.put("passes", list(h.passes(), x -> JsonObject.builder().put("node", x.node()).put("pass", x.pass()).build()));
            }
            return o.build();
        }
        if (m instanceof Cap c) {
            JsonObject.Builder o = JsonObject.builder().put("grants", list(c.grants(), MessageWriter::grant))
                    .put("withdrawals", list(c.withdrawals(), MessageWriter::grant)).put("full", c.full());
            if (c.reason() != null) {
                o.put("reason", c.reason());
            }
            return o.build();
        }
        if (m instanceof Plan p) {
            return JsonObject.builder().put("launches", list(p.launches(), MessageWriter::launch)).build();
        }
        Ack a = (Ack) m;
        return JsonObject.builder().put("sequence", a.sequence())
                .put("problems", list(a.problems(), MessageWriter::problem)).build();
    }

    /** An exit's {@code oom}, written only for an end its memory limit caused (protocol version 6). */
    private static JsonObject.Builder oom(JsonObject.Builder o, Heartbeat.Oom oom) {
        if (oom != null) {
            o.put("oom", JsonObject.builder().put("limitMiB", oom.limitMiB()).put("peakMiB", oom.peakMiB()).build());
        }
        return o;
    }

    /** An exit's {@code stopped}, written only where its code does not say it (a stop that ended with another code). */
    private static JsonObject stopped(JsonObject.Builder o, int code, boolean stopped) {
        if (stopped != (code == Heartbeat.STOPPED)) {
            o.put("stopped", stopped);
        }
        return o.build();
    }

    private static JsonObject register(Register r) {
        JsonObject.Builder o = JsonObject.builder().put("node", r.node()).put("room", r.room()).put("labels", strings(r.labels()))
                .put("capacity", JobCodec.resourcesJson(r.capacity())).put("endpoint", r.endpoint())
                .put("caps", list(r.caps(), MessageWriter::grant));
        if (r.epoch() > 0) {
            o.put("epoch", r.epoch());
        }
        return o.build();
    }

    private static JsonObject heartbeat(Heartbeat h) {
        JsonObject.Builder o = JsonObject.builder().put("started", list(h.started(), MessageWriter::worker))
                .put("exited", list(h.exited(), x -> stopped(oom(JsonObject.builder().put("unit", unit(x.unit()))
                        .put("slot", x.slot()).put("exitCode", x.exitCode()), x.oom()), x.exitCode(), x.stopped())));
        if (h.capacity() != null) {
            o.put("capacity", JobCodec.resourcesJson(h.capacity()));
        }
        if (!h.uncapped().isEmpty()) {
            o.put("uncapped", list(h.uncapped(), MessageWriter::worker));
        }
        if (h.usage() != null) {
            o.put("usage", JsonObject.builder().put("node", JobCodec.resourcesJson(h.usage().node()))
                    .put("workers", list(h.usage().workers(), w -> JsonObject.builder().put("unit", unit(w.unit()))
                            .put("slot", w.slot()).put("used", JobCodec.resourcesJson(w.used())).build())).build());
        }
        if (h.health() != null) {
            JsonObject.Builder x = JsonObject.builder().put("healthy", h.health().healthy());
            if (!h.health().reason().isEmpty()) {
                x.put("reason", h.health().reason());
            }
            o.put("health", x.build());
        }
        return o.build();
    }

    private static JsonObject request(Request r) {
        JsonObject.Builder o = JsonObject.builder().put("full", r.full())
                .put("jobs", list(r.jobs(), MessageWriter::job))
                .put("desires", list(r.desires(), d -> JsonObject.builder()
                        .put("unit", unit(d.unit())).put("desired", d.desired()).build()))
                .put("cancels", list(r.cancels(), JsonValue::of))
                .put("releases", list(r.releases(), x -> JsonObject.builder()
                        .put("unit", unit(x.unit())).put("node", x.node()).put("slots", x.slots()).build()))
                .put("holdings", list(r.holdings(), x -> JsonObject.builder()
                        .put("unit", unit(x.unit())).put("node", x.node()).put("slots", x.slots()).build()));
        if (r.restart() != null) {
            o.put("restart", restart(r.restart()));
        }
        if (r.mark() > 0) {
            o.put("mark", r.mark());
        }
        return o.build();
    }

    private static JsonObject restart(Request.Restart r) {
        JsonObject.Builder o = program(r.program()).put("size", JobCodec.resourcesJson(r.size()));
        if (r.node() != null) {
            o.put("node", r.node());
        }
        return o.build();
    }

    private static JsonObject.Builder program(Program p) {
        return JsonObject.builder().put("command", list(p.command(), JsonValue::of))
                .put("environment", strings(p.environment())).put("workingDirectory", p.workingDirectory());
    }

    /**
     * A job in the job file format. The codec offers that format only as text, so the text is read
     * back into a tree; jobs are small and this keeps one definition of the format.
     */
    private static JsonValue job(JobSpec job) {
        return JsonReader.read(JobCodec.write(job), "job " + job.id());
    }

    private static JsonObject worker(Heartbeat.Worker w) {
        return JsonObject.builder().put("unit", unit(w.unit())).put("slot", w.slot()).build();
    }

    private static JsonObject grant(Cap.Grant g) {
        JsonObject.Builder o = JsonObject.builder().put("jobMaster", g.jobMaster()).put("unit", unit(g.unit()))
                .put("slots", g.slots()).put("key", g.key()).put("size", JobCodec.resourcesJson(g.size()))
                .put("online", g.online());
        if (g.launch() != null) {
            o.put("launch", program(g.launch()).build());
        }
        return o.build();
    }

    private static JsonObject launch(Plan.Launch l) {
        JsonObject.Builder o = JsonObject.builder().put("unit", unit(l.unit())).put("slot", l.slot())
                .put("command", list(l.command(), JsonValue::of)).put("environment", strings(l.environment()))
                .put("workingDirectory", l.workingDirectory());
        if (l.epoch() > 0) {
            o.put("epoch", l.epoch());
        }
        if (l.probe()) {
            o.put("probe", true);
        }
        return o.build();
    }

    private static JsonObject problem(Problem p) {
        JsonObject.Builder o = JsonObject.builder().put("subject", p.subject()).put("field", p.field())
                .put("message", p.message());
        if (p.limit() != null) {
            o.put("limit", p.limit());
        }
        if (p.value() != null) {
            o.put("value", p.value());
        }
        return o.build();
    }

    static JsonValue unit(UnitId u) {
        return JsonValue.of(u.toString());
    }

    static JsonObject strings(Map<String, String> m) {
        JsonObject.Builder o = JsonObject.builder();
        m.forEach(o::put);
        return o.build();
    }

    static <T> JsonArray list(List<T> items, Function<T, JsonValue> each) {
        List<JsonValue> out = new ArrayList<>(items.size());
        items.forEach(i -> out.add(each.apply(i)));
        return new JsonArray(out, JsonPosition.NONE);
    }
}
