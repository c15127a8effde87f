package granary.policy.queues;

import granary.api.spi.Policy;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ServiceScope;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The queues policy as a DS component, its tree read from a file. A configuration change re-creates
 * it and the engine swaps it in. A file that cannot be read or parsed fails the activation with the
 * file's problems (SCR reports them), so a half-configured policy never starts; a tree can also be
 * replaced at run time without a restart through {@link #reconfigure}.
 */
@Component(service = Policy.class, scope = ServiceScope.PROTOTYPE, configurationPid = "granary.policy.queues",
        property = "granary.policy.name=" + QueuesPolicy.NAME)
@Designate(ocd = QueuesComponent.Config.class)
public class QueuesComponent extends QueuesPolicy {

    @ObjectClassDefinition(name = "Granary queues policy",
            description = "Hierarchical queues addressed by full path: resolution, maximum capacity and "
                    + "running-job limits, hierarchical group order.")
    public @interface Config {
        @AttributeDefinition(required = false, description = "Path of the queue tree JSON file (see "
                + "granary.codec.QueueTreeCodec); empty: no tree, job groups are taken as given and nothing is limited.")
        String file() default "";
    }

    /** @throws granary.api.InvalidRequestException if the file cannot be read or is not a valid tree */
    @Activate
    public QueuesComponent(Config config) {
        super(QueueFile.read(config.file()));
    }
}
