package granary.policy.gang;

import granary.api.spi.Policy;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ServiceScope;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The gang policy as a DS component. A configuration change re-creates it; the engine swaps it in
 * between two decisions (the policy keeps no state, so nothing is lost).
 */
@Component(service = Policy.class, scope = ServiceScope.PROTOTYPE, configurationPid = "granary.policy.gang",
        property = "granary.policy.name=" + GangPolicy.NAME)
@Designate(ocd = GangComponent.Config.class)
public class GangComponent extends GangPolicy {

    @ObjectClassDefinition(name = "Granary gang policy",
            description = "All-or-nothing placement (spec §8): a gang is granted whole or not at all.")
    public @interface Config {
        @AttributeDefinition(description = "How nodes are chosen inside a locality step. BEST_FIT: nodes with room "
                + "for the fewest slots first, so whole nodes stay free for big gangs. FIRST_FIT: in cluster order.")
        Packing packing() default Packing.BEST_FIT;

        @AttributeDefinition(description = "Refuse at submit a gang that can never fit: more than the cluster's "
                + "capacity, or more slots than the nodes a unit may use can hold. False: let it wait (a cluster "
                + "that grows on demand).")
        boolean refuseNeverFitting() default true;
    }

    @Activate
    public GangComponent(Config config) {
        super(config.packing(), config.refuseNeverFitting());
    }
}
