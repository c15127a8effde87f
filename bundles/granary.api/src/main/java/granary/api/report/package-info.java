/**
 * What a policy publishes about itself, as data: a {@link granary.api.report.Report} of sections of
 * labelled cells. The console prints it as text, the HTTP API serves it as JSON, the simulator samples
 * it as time series — none of them names the policy (see docs/architecture.md, "Reports and commands").
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("1.0.0")
package granary.api.report;
