package granary.policy.quota.api;

import java.util.List;

import granary.api.spi.EngineView;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Implemented by a quota policy so that the console and the HTTP API can read it (through
 * {@link EngineView#policy}). Called on the engine thread.
 */
@ConsumerType
public interface QuotaReports {

    QuotaReport quota(EngineView view);

    /** Billing rows of one day ({@code yyyy-MM-dd}), or of every day kept when {@code day} is null. */
    List<BillingRow> billing(String day, EngineView view);

    /** The table in force, or null. */
    QuotaTable table();
}
