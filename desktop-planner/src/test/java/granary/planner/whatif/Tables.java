package granary.planner.whatif;

import java.io.StringReader;
import java.nio.file.Path;

import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.QuotaTableCodec;

/** Quota tables and trace files of the what-if tests. */
final class Tables {

    /** The real Alibaba v2017 batch trace, as the simulator's tests keep it (tests run in desktop-planner/). */
    static final Path ALIBABA_2017 = Path.of("../bundles/granary.sim/src/test/resources/traces/alibaba-v2017-batch-task/batch_task.csv.gz");
    static final Path TWO_GROUPS = Path.of("src/test/resources/whatif/two-groups.json");
    static final Path MALFORMED = Path.of("src/test/resources/whatif/malformed-batch_task.csv");

    private Tables() {
    }

    /** One default slice: each group name with its MaxQuota in workers, MinQuota 0, ids from 1. */
    static QuotaTable maxima(Object... nameAndMax) {
        StringBuilder sb = new StringBuilder("{\"default\": {");
        for (int i = 0; i < nameAndMax.length; i += 2) {
            sb.append(i == 0 ? "" : ", ").append('"').append(nameAndMax[i]).append("\": {\"GroupId\": ").append(i / 2 + 1)
                    .append(", \"MaxQuota\": ").append(nameAndMax[i + 1]).append(", \"MinQuota\": 0}");
        }
        return read(sb.append("}}").toString());
    }

    static QuotaTable read(String json) {
        return QuotaTableCodec.read(new StringReader(json), "test table", null);
    }
}
