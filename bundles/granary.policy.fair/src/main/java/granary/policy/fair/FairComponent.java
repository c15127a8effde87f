package granary.policy.fair;

import granary.api.spi.Policy;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ServiceScope;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** The FAIR policy as a DS component. A configuration change re-creates it; the engine swaps it in. */
@Component(service = Policy.class, scope = ServiceScope.PROTOTYPE, configurationPid = "granary.policy.fair",
        property = "granary.policy.name=" + FairPolicy.NAME)
@Designate(ocd = FairComponent.Config.class)
public class FairComponent extends FairPolicy {

    @ObjectClassDefinition(name = "Granary FAIR policy", description = "Unit order: priority, then fewest slots held.")
    public @interface Config {
        @AttributeDefinition(description = "What 'fewer slots' counts: SLOTS held, or FRACTION of the desired slots held.")
        Measure measure() default Measure.SLOTS;
    }

    @Activate
    public FairComponent(Config config) {
        super(config.measure());
    }
}
