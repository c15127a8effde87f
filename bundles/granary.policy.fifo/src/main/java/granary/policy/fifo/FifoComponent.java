package granary.policy.fifo;

import granary.api.spi.Policy;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ServiceScope;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** The FIFO policy as a DS component. A configuration change re-creates it; the engine swaps it in. */
@Component(service = Policy.class, scope = ServiceScope.PROTOTYPE, configurationPid = "granary.policy.fifo",
        property = "granary.policy.name=" + FifoPolicy.NAME)
@Designate(ocd = FifoComponent.Config.class)
public class FifoComponent extends FifoPolicy {

    @ObjectClassDefinition(name = "Granary FIFO policy", description = "Unit order: priority, then submit time.")
    public @interface Config {
        @AttributeDefinition(description = "Order by priority before submit time (false: strict arrival order).")
        boolean priorityFirst() default true;
    }

    @Activate
    public FifoComponent(Config config) {
        super(config.priorityFirst());
    }
}
