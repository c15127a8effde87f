/**
 * The policy SPI: small extension-point interfaces a policy implements, the live views the engine
 * hands to them, and the one result type {@link granary.api.spi.Verdict}.
 */
@org.osgi.annotation.bundle.Export
@org.osgi.annotation.versioning.Version("3.2.0")
package granary.api.spi;
