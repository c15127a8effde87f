package granary.master;

import java.net.URI;
import org.osgi.annotation.versioning.ProviderType;

/**
 * Whether this master may act as the cluster's leader at this instant (docs/ha.md, "The lease"):
 * grant, send caps and hints, accept writes. A single master always may ({@link #ALWAYS}); under
 * high availability the elected leader may while its election's lease holds, a standby never.
 *
 * <p>{@link #held()} reads a monotonic clock, so it is checked again right before anything leaves
 * the process: a pause between two checks is caught by the second. Once not held it is never held
 * again by the same master. The runtime registers one as a service for the HTTP API.
 */
@ProviderType
public interface LeaderLease {

    /** True while this master may act as the leader; cheap (a clock read), call it at every step that acts. */
    boolean held();

    /** Why not, in words for a refusal and the log; empty while held. */
    String why();

    /** The leader to point a caller at when this master is not it (a standby's), or null if unknown. */
    default URI leader() {
        return null;
    }

    /** A master that is the only one: always the leader. */
    LeaderLease ALWAYS = new LeaderLease() {
        @Override
        public boolean held() {
            return true;
        }

        @Override
        public String why() {
            return "";
        }

        @Override
        public String toString() {
            return "LeaderLease.ALWAYS";
        }
    };
}
