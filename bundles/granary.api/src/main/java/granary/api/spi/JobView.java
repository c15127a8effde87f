package granary.api.spi;

import java.util.List;

import granary.api.model.JobSpec;

import org.osgi.annotation.versioning.ProviderType;

/** A job as the engine sees it now. Live: read it on the engine thread only. */
@ProviderType
public interface JobView {

    String id();

    String group();

    String user();

    int productionLevel();

    /** All units form one all-or-nothing gang. */
    boolean gang();

    long submitTime();

    /** Slots the job asked for at submission, over all its units (constant for the job's life). */
    long requestedSlots();

    /** Its units in request order. */
    List<? extends UnitView> units();

    /** The job as submitted, with the units as last requested. */
    JobSpec spec();
}
