package granary.launcher;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * Writes Config Admin configurations from outside the framework. The launcher lives on the class
 * path, where the Config Admin API is not: it calls the service by reflection, through the API
 * classes of the bundle that registered it.
 */
final class Configurations {

    static final String ADMIN = "org.osgi.service.cm.ConfigurationAdmin";
    static final String CONFIGURATION = "org.osgi.service.cm.Configuration";

    private Configurations() {
    }

    /**
     * Creates or replaces the configuration of each PID (unbound: it binds to the bundle that uses it).
     *
     * @throws IllegalStateException if there is no Config Admin service or it refuses a configuration
     */
    static void update(BundleContext context, Map<String, Map<String, Object>> configurations) {
        ServiceReference<?> ref = Container.service(context, ADMIN);
        if (ref == null) {
            throw new IllegalStateException("no Config Admin service: cannot configure " + configurations.keySet());
        }
        Object admin = context.getService(ref);
        try {
            Method get = ref.getBundle().loadClass(ADMIN).getMethod("getConfiguration", String.class, String.class);
            Method update = ref.getBundle().loadClass(CONFIGURATION).getMethod("update", Dictionary.class);
            for (Map.Entry<String, Map<String, Object>> c : configurations.entrySet()) {
                Object configuration = get.invoke(admin, c.getKey(), null);
                update.invoke(configuration, new Hashtable<>(c.getValue()));
            }
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("Config Admin refused " + configurations + ": " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Config Admin API not usable: " + e, e);
        } finally {
            context.ungetService(ref);
        }
    }
}
