package granary.http;

import com.google.gson.JsonObject;
import granary.master.PeerStatus;
import java.util.List;

/** The master's peers as the API lists them (docs/api.md, "Resources"). */
public interface PeerSource {

    List<PeerStatus> agents();

    List<PeerStatus> jobMasters();

    static JsonObject json(PeerStatus p) {
        JsonObject o = new JsonObject();
        o.addProperty(p.role().equals("agent") ? "node" : "id", p.id());
        o.addProperty("state", p.state());
        o.addProperty("incarnation", p.incarnation());
        o.addProperty("silentMillis", p.silentMillis());
        o.addProperty("units", p.units());
        o.addProperty("slots", p.slots());
        if (p.role().equals("agent")) {
            o.addProperty("workers", p.workers());
            o.addProperty("endpoint", p.endpoint());
            if (p.used() != null) {
                // what the node uses now, as its agent last said (docs/agent.md, "What is reported")
                JsonObject used = new JsonObject();
                used.addProperty("cpu", p.used().cpu());
                used.addProperty("mem", p.used().memMb());
                o.add("used", used);
            }
            if (!p.unhealthy().isEmpty()) {
                o.addProperty("unhealthy", p.unhealthy()); // why it takes no new work (docs/agent.md, "Node health")
            }
        } else {
            o.addProperty("jobs", p.jobs());
            if (!p.restart().isEmpty()) {
                // where a restart by the master stands (docs/recovery.md, "Restarting a lost job master")
                o.addProperty("restart", p.restart());
            }
        }
        return o;
    }
}
