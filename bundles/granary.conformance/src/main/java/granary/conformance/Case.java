package granary.conformance;

import java.util.function.Consumer;

/**
 * One named failover case of docs/recovery.md: what is injected into a running cluster, and any
 * check of its own while the fault lasts (reported as violations).
 */
public record Case(String id, String title, String injected, Consumer<World> inject) {
}
