package granary.api.spi;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * How a policy bundle makes its {@link PolicyDeclaration} known: one implementation per bundle, named
 * in {@code META-INF/services/granary.api.spi.PolicyProvider}. On a class path (the simulator, tests)
 * {@link java.util.ServiceLoader} finds it; in the OSGi runtime the engine bundle's policy extender
 * reads the same file from every started bundle and registers the policy's service, configuration
 * and metatype from the declaration.
 */
@ConsumerType
public interface PolicyProvider {

    PolicyDeclaration declaration();
}
