package granary.demo.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;

import granary.demo.DemoSettings;

import org.junit.jupiter.api.Test;

class DemoComponentTest {

    /** The configuration as DS builds it when Config Admin has nothing for the PID. */
    private static DemoComponent.Config defaults() {
        return (DemoComponent.Config) Proxy.newProxyInstance(DemoComponent.Config.class.getClassLoader(),
                new Class<?>[] {DemoComponent.Config.class}, (proxy, method, args) -> method.getDefaultValue());
    }

    @Test
    void theMetatypeDefaultsAreTheSettingsDefaults() {
        assertTrue(defaults().enabled());
        assertEquals(DemoSettings.DEFAULTS, DemoComponent.settings(defaults()));
    }
}
