package granary.api.spi;

import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Makes new instances of one policy outside a framework: the simulator and other class-path users
 * find providers with {@link java.util.ServiceLoader} ({@code META-INF/services/granary.api.spi.PolicyProvider})
 * and build a policy by name, with its options as text. Inside the OSGi runtime the same policies
 * are prototype-scoped DS services.
 */
@ConsumerType
public interface PolicyProvider {

    /** The name of the policies it makes, e.g. {@code fifo}. */
    String name();

    /**
     * A new, independent instance.
     *
     * @param options option name → value as text (e.g. {@code windowMillis=5000}); unknown names
     *                and bad values are an {@link granary.api.InvalidRequestException} naming them
     */
    Policy create(Map<String, String> options);

    /** Option name → description, for usage texts. */
    default Map<String, String> options() {
        return Map.of();
    }
}
