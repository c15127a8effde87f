package granary.engine.osgi;

import granary.api.spi.Policy;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.Settings;

import org.osgi.framework.Bundle;
import org.osgi.framework.PrototypeServiceFactory;
import org.osgi.framework.ServiceRegistration;

/**
 * Makes a new instance of a declared policy for every user of the service (prototype scope): the
 * engine's instance holds live state (reservation locks, billing), and a replay must never share it.
 */
final class PolicyFactory implements PrototypeServiceFactory<Policy> {

    private final PolicyDeclaration declaration;
    private final Settings settings;

    PolicyFactory(PolicyDeclaration declaration, Settings settings) {
        this.declaration = declaration;
        this.settings = settings;
    }

    @Override
    public Policy getService(Bundle bundle, ServiceRegistration<Policy> registration) {
        return declaration.create(settings);
    }

    @Override
    public void ungetService(Bundle bundle, ServiceRegistration<Policy> registration, Policy service) {
        // a policy holds no resources outside the engine: nothing to close
    }
}
