package granary.master;

/**
 * One peer as the console and the HTTP API show it.
 *
 * @param role          {@code agent} or {@code job-master}
 * @param id            node name or job master id
 * @param state         {@code live}, {@code lost} after its timeout, or {@code restarting} (a lost job master the master starts again)
 * @param incarnation   its living incarnation
 * @param silentMillis  time since its last message or poll
 * @param units         units it holds slots for (an agent: on its node; a job master: of its jobs)
 * @param slots         slots it holds in all
 * @param workers       workers running (agents: as reported; job masters: -1, not known)
 * @param jobs          jobs it owns (job masters; 0 for agents)
 * @param endpoint      where an agent takes plans ({@code -} for job masters)
 * @param restart       a job master the master is starting again: where that stands (docs/recovery.md,
 *                      "Restarting a lost job master"); empty otherwise
 * @param used          what an agent's node uses now, as its last heartbeat said (cpu in hundredths of a
 *                      core, mem in MiB); null when not reported (an older agent, a job master)
 * @param unhealthy     why an agent says its node is not fit for work (it gets no new work meanwhile;
 *                      docs/agent.md, "Node health"); empty while it is
 */
public record PeerStatus(String role, String id, String state, long incarnation, long silentMillis, int units,
                         long slots, int workers, int jobs, String endpoint, String restart,
                         granary.api.model.Resources used, String unhealthy) {

    /** A peer without usage or health to show. */
    public PeerStatus(String role, String id, String state, long incarnation, long silentMillis, int units,
                      long slots, int workers, int jobs, String endpoint, String restart) {
        this(role, id, state, incarnation, silentMillis, units, slots, workers, jobs, endpoint, restart, null, "");
    }

    /** A peer that is not being restarted. */
    public PeerStatus(String role, String id, String state, long incarnation, long silentMillis, int units,
                      long slots, int workers, int jobs, String endpoint) {
        this(role, id, state, incarnation, silentMillis, units, slots, workers, jobs, endpoint, "");
    }

    /** The console's one-line form: {@code key=value} fields. */
    public String line() {
        StringBuilder b = new StringBuilder();
        b.append(role.equals("agent") ? "node=" : "id=").append(id).append(" state=").append(state)
                .append(" incarnation=").append(incarnation).append(" lastSeen=").append(silentMillis).append("ms");
        if (role.equals("agent")) {
            b.append(" caps=").append(units).append(" slots=").append(slots).append(" workers=").append(workers)
                    .append(" used=").append(used == null ? "-" : used.toString())
                    .append(" endpoint=").append(endpoint);
            if (!unhealthy.isEmpty()) {
                b.append(" health=unhealthy reason=\"").append(unhealthy.replace("\"", "'")).append('"');
            }
        } else {
            b.append(" jobs=").append(jobs).append(" units=").append(units).append(" slots=").append(slots);
            if (!restart.isEmpty()) {
                b.append(" restart=\"").append(restart).append('"');
            }
        }
        return b.toString();
    }
}
