package granary.policy.quota;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.DateTimeException;
import java.time.ZoneId;

import granary.api.model.InvalidRequestException;
import granary.api.spi.OptionSpec;
import granary.api.spi.PolicyDeclaration;
import granary.api.spi.PolicyProvider;
import granary.api.spi.Settings;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.QuotaTableCodec;

/**
 * The quota policy, declared once (docs/policies.md, "quota"). A new configuration makes a new
 * instance (billing starts over); a table loaded at run time with the {@code quota-load} command
 * keeps billing.
 */
public final class QuotaProvider implements PolicyProvider {

    static final OptionSpec<String> TABLE_FILE = OptionSpec.text("tableFile", "",
            "Quota table file (JSON; docs/formats.md, \"Quota table\"). Empty: no table; "
                    + "the policy then admits everything.").commandLine("quota");
    static final OptionSpec<String> WORKER_SPANS = OptionSpec.text("workerSpans", "",
            "WorkerSpans: workers per slice, e.g. default:5000,0-9:15000. Empty: none.").commandLine("workers-spans");
    static final OptionSpec<String> ZONE = OptionSpec.text("zone", "UTC",
            "Time zone of slice hours and billing days, e.g. UTC or Asia/Shanghai.").checkedBy(QuotaProvider::zoneExists);
    static final OptionSpec<Boolean> PREEMPTION = OptionSpec.flag("preemption", true,
            "A group below its MinQuota takes capacity back by preempting offline grants of groups above theirs, the "
                    + "youngest past minRunSeconds first.");
    static final OptionSpec<QuotaOptions.EmergentMode> EMERGENT = OptionSpec.choice("emergent",
            QuotaOptions.EmergentMode.class, QuotaOptions.EmergentMode.CLAIM,
            "What the top job that cannot be placed gets: claim (the nodes it needs are kept for it as they free up; "
                    + "the rest of the cluster keeps working), hold (nothing else is granted until it fits: "
                    + "ServiceMode clusters of short jobs) or off.");
    static final OptionSpec<Long> MIN_RUN_SECONDS = OptionSpec.number("minRunSeconds", 10, 0, 86_400,
            "Preemption never takes a grant younger than this.");
    static final OptionSpec<Long> MAX_PREEMPTED_PER_MINUTE = OptionSpec.number("maxPreemptedPerMinute", 0, 0,
            100_000_000, "At most this many slots revoked by preemption in any 60 s; 0 = no limit.");
    static final OptionSpec<Boolean> LOOKAHEAD = OptionSpec.flag("lookahead", true,
            "Before a slice boundary lowers a group's quota, work expected to outlive it is granted only within "
                    + "the next slice's quota.");
    static final OptionSpec<Long> LOOKAHEAD_MINUTES = OptionSpec.number("lookaheadMinutes", 60, 0, 1440,
            "How long before a boundary the lookahead acts.");
    static final OptionSpec<Boolean> SMALL_FIRST = OptionSpec.flag("smallFirst", true,
            "Among groups alike by production level, MinQuota and priority, the one whose next job asks for fewer "
                    + "slots goes first; off: the earlier submission.");
    static final OptionSpec<Long> GRACE_SECONDS = OptionSpec.number("graceSeconds", 0, 0, 3_600,
            "A group below its MinQuota with demand first waits this long for capacity that frees up on its own "
                    + "(it is served first) before it preempts.");
    static final OptionSpec<Boolean> YIELD_ABOVE_MIN = OptionSpec.flag("yieldAboveMin", false,
            "While a group below its MinQuota waits for resources, groups above theirs get no new grants (preemption "
                    + "would take those back first).");
    static final OptionSpec<Long> PACKING_HEADROOM = OptionSpec.number("packingHeadroomPercent", 2, 0, 50,
            "When the MinQuotas in force add up to more than the cluster less this share in a resource, each is lowered "
                    + "pro rata until they do not: slots never pack a cluster whole, and a min the cluster cannot pack "
                    + "keeps a group below it for good. 0: the mins as the table says.");
    static final OptionSpec<Long> MIN_DEAD_ZONE = OptionSpec.number("minDeadZonePerMille", 1, 0, 100,
            "A group counts as below its MinQuota (it preempts, and the guarantee is measured) only when it is short of "
                    + "it by more than this many thousandths of it in every resource; once it preempts it takes up to its "
                    + "whole MinQuota. Keeps a group that hovers a slot or two under its MinQuota from preempting every "
                    + "second. 0: any shortfall.");
    static final OptionSpec<Long> BILLING_DAYS = OptionSpec.number("billingDays", 31, 1, 3660, "Days of billing kept.");

    public static final PolicyDeclaration DECLARATION = PolicyDeclaration.of(QuotaPolicy.NAME, QuotaPolicy.class)
            .description("Elastic quota groups with a time-sliced quota table: admission, group order, preemption, billing.")
            .option(TABLE_FILE)
            .option(WORKER_SPANS)
            .option(ZONE)
            .option(PREEMPTION)
            .option(EMERGENT)
            .option(MIN_RUN_SECONDS)
            .option(MAX_PREEMPTED_PER_MINUTE)
            .option(LOOKAHEAD)
            .option(LOOKAHEAD_MINUTES)
            .option(BILLING_DAYS)
            .option(SMALL_FIRST)
            .option(GRACE_SECONDS)
            .option(YIELD_ABOVE_MIN)
            .option(PACKING_HEADROOM)
            .option(MIN_DEAD_ZONE)
            .factory(QuotaProvider::create)
            .with(QuotaReporting::declare)
            .with(QuotaEdges::declare)
            .build();

    @Override
    public PolicyDeclaration declaration() {
        return DECLARATION;
    }

    private static QuotaPolicy create(Settings s) {
        QuotaOptions options = new QuotaOptions(ZoneId.of(s.get(ZONE)), s.get(PREEMPTION), s.get(EMERGENT),
                s.get(MIN_RUN_SECONDS), s.get(MAX_PREEMPTED_PER_MINUTE), s.get(LOOKAHEAD), s.get(LOOKAHEAD_MINUTES),
                s.get(BILLING_DAYS).intValue(), s.get(SMALL_FIRST), s.get(GRACE_SECONDS),
                s.get(YIELD_ABOVE_MIN), s.get(PACKING_HEADROOM), s.get(MIN_DEAD_ZONE));
        s.read(WORKER_SPANS, QuotaTableCodec::workerSpans);   // a bad WorkerSpans is named as such, not as the file's
        return new QuotaPolicy(options, s.read(TABLE_FILE, file -> table(s.subject(), file, s.get(WORKER_SPANS))));
    }

    private static void zoneExists(String zone) {
        try {
            ZoneId.of(zone);
        } catch (DateTimeException e) {
            throw new IllegalArgumentException("'" + zone + "' is not a time zone (e.g. UTC, Asia/Shanghai)");
        }
    }

    /** Reads the configured table; a bad file refuses the settings with every problem in the message. */
    static QuotaTable table(String subject, String file, String workerSpans) {
        if (file == null || file.isBlank()) {
            if (workerSpans != null && !workerSpans.isBlank()) {
                throw new InvalidRequestException(subject, WORKER_SPANS.name(), "is set but " + TABLE_FILE.name()
                        + " is not: WorkerSpans belong to a quota table");
            }
            return null;
        }
        Path path = Path.of(file.trim());
        if (!Files.isRegularFile(path)) {
            throw new InvalidRequestException(subject, TABLE_FILE.name(), "no such file " + path.toAbsolutePath());
        }
        return QuotaTableCodec.read(path, QuotaTableCodec.workerSpans(workerSpans));
    }
}
