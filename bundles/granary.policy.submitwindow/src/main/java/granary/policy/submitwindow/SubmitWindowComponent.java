package granary.policy.submitwindow;

import granary.api.spi.Policy;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ServiceScope;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** The SubmitWindow policy as a DS component. A configuration change re-creates it; the engine swaps it in. */
@Component(service = Policy.class, scope = ServiceScope.PROTOTYPE, configurationPid = "granary.policy.submitwindow",
        property = "granary.policy.name=" + SubmitWindowPolicy.NAME)
@Designate(ocd = SubmitWindowComponent.Config.class)
public class SubmitWindowComponent extends SubmitWindowPolicy {

    @ObjectClassDefinition(name = "Granary SubmitWindow policy",
            description = "Unit order: priority, submit window, smaller all-or-nothing request, submit time.")
    public @interface Config {
        @AttributeDefinition(description = "Width W of a submit window in milliseconds (the article uses 5 s).")
        long windowMillis() default SubmitWindowPolicy.DEFAULT_WINDOW_MILLIS;
    }

    @Activate
    public SubmitWindowComponent(Config config) {
        super(config.windowMillis());
    }
}
