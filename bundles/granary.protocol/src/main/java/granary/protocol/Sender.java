package granary.protocol;

import java.util.Objects;

/**
 * Who sent an envelope: a role and an id unique within the role (an agent's node name, a job
 * master's name, the master's name). Text form {@code agent n7}.
 */
public record Sender(Role role, String id) {

    public Sender {
        Objects.requireNonNull(role, "role");
        Objects.requireNonNull(id, "id");
    }

    @Override
    public String toString() {
        return role.wire() + " " + id;
    }
}
