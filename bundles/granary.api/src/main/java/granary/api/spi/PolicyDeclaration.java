package granary.api.spi;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.Function;

import granary.api.model.InvalidRequestException;
import granary.api.report.Report;

/**
 * Everything about one policy, said once: its name, the class whose interfaces are its extension
 * points, a description, its options, how an instance is made from them, and the reports and
 * commands it offers operators, the HTTP resources, metrics and why-not reason codes it offers the
 * edges. The runtime derives the policy's service, configuration PID
 * ({@code granary.policy.<name>}) and metatype from it; the simulator and other class-path users
 * find it with {@link java.util.ServiceLoader} through a {@link PolicyProvider}; the console, the
 * HTTP API and the metrics serve what it declares without naming the policy. See docs/policies.md, "Writing a
 * policy".
 */
public final class PolicyDeclaration {

    private final String name;
    private final Class<? extends Policy> type;
    private final String description;
    private final List<OptionSpec<?>> options;
    private final Function<Settings, ? extends Policy> factory;
    private final List<ReportSpec> reports;
    private final List<CommandSpec> commands;
    private final List<ResourceSpec> resources;
    private final List<MetricSpec> metrics;
    private final List<ReasonCode> reasons;

    private PolicyDeclaration(Builder<?> b) {
        this.name = b.name;
        this.type = b.type;
        this.description = b.description;
        this.options = List.copyOf(b.options.values());
        this.factory = b.factory;
        this.reports = List.copyOf(b.reports);
        this.commands = List.copyOf(b.commands);
        this.resources = List.copyOf(b.resources);
        this.metrics = List.copyOf(b.metrics);
        this.reasons = List.copyOf(b.reasons.values());
    }

    /** Starts the declaration of the policy {@code name}, implemented by {@code type}. */
    public static <P extends Policy> Builder<P> of(String name, Class<P> type) {
        return new Builder<>(name, type);
    }

    /** Lower case, the last segment of the bundle's symbolic name: {@code fifo} for {@code granary.policy.fifo}. */
    public String name() {
        return name;
    }

    /** The configuration PID of the policy in the runtime: {@code granary.policy.<name>}. */
    public String pid() {
        return "granary.policy." + name;
    }

    public Class<? extends Policy> type() {
        return type;
    }

    /** The extension points its class implements. */
    public Set<ExtensionPoint> points() {
        return ExtensionPoint.of(type);
    }

    public String description() {
        return description;
    }

    public List<OptionSpec<?>> options() {
        return options;
    }

    /** The option of that name, or null. */
    public OptionSpec<?> option(String optionName) {
        for (OptionSpec<?> o : options) {
            if (o.name().equals(optionName)) {
                return o;
            }
        }
        return null;
    }

    public List<ReportSpec> reports() {
        return reports;
    }

    public List<CommandSpec> commands() {
        return commands;
    }

    /** The HTTP resources it offers (docs/api.md, "Resources policies declare"). */
    public List<ResourceSpec> resources() {
        return resources;
    }

    /** The metrics it exports, read from its reports (docs/operations.md, "Metrics"). */
    public List<MetricSpec> metrics() {
        return metrics;
    }

    /**
     * The reason codes of its own it may give (besides the engine's, {@link ReasonCode#engineCodes()}),
     * with their texts (docs/scheduling.md, "Why is my job not scheduled?").
     */
    public List<ReasonCode> reasons() {
        return reasons;
    }

    /**
     * Reads and checks options. Every given name must be a declared option; every value is read by
     * its option ({@link OptionSpec#read}); options not given take their defaults.
     *
     * @param raw option name → value (text from a command line, or typed values from configuration)
     * @throws InvalidRequestException listing every unknown option and every bad value
     */
    public Settings settings(Map<String, ?> raw) {
        String subject = "policy " + name;
        List<granary.api.model.Problem> problems = new ArrayList<>();
        Set<String> known = new TreeSet<>();
        options.forEach(o -> known.add(o.name()));
        for (String k : new TreeSet<>(raw.keySet())) {
            if (option(k) == null) {
                problems.add(granary.api.model.Problem.of(subject, k, "unknown option; known: "
                        + (known.isEmpty() ? "none" : String.join(", ", known))));
            }
        }
        Map<String, Object> values = new LinkedHashMap<>();
        for (OptionSpec<?> o : options) {
            try {
                values.put(o.name(), o.read(raw.get(o.name()), subject));
            } catch (InvalidRequestException e) {
                problems.addAll(e.problems());
            }
        }
        if (!problems.isEmpty()) {
            throw new InvalidRequestException(problems);
        }
        return new Settings(subject, values);
    }

    /**
     * A new, independent instance from checked settings. A factory that refuses its settings (a file
     * that cannot be read) throws {@link InvalidRequestException} naming the option.
     */
    public Policy create(Settings settings) {
        Policy p = factory.apply(settings);
        if (p == null || !p.name().equals(name)) {
            throw new IllegalStateException("policy " + name + ": its factory made " + (p == null ? "nothing" : "'" + p.name() + "'"));
        }
        return p;
    }

    /** {@link #settings} then {@link #create(Settings)}. */
    public Policy create(Map<String, ?> raw) {
        return create(settings(raw));
    }

    @Override
    public String toString() {
        return "policy " + name;
    }

    /** Builds a declaration; {@link #build} checks that names are unique and a factory is given. */
    public static final class Builder<P extends Policy> {
        private final String name;
        private final Class<P> type;
        private String description = "";
        private final Map<String, OptionSpec<?>> options = new LinkedHashMap<>();
        private Function<Settings, ? extends Policy> factory;
        private final List<ReportSpec> reports = new ArrayList<>();
        private final List<CommandSpec> commands = new ArrayList<>();
        private final List<ResourceSpec> resources = new ArrayList<>();
        private final List<MetricSpec> metrics = new ArrayList<>();
        private final Map<String, ReasonCode> reasons = new LinkedHashMap<>();

        private Builder(String name, Class<P> type) {
            if (name == null || !name.matches("[a-z][a-z0-9-]*")) {
                throw new IllegalArgumentException("a policy name is lower-case letters, digits and '-', got '" + name + "'");
            }
            if (type == null || ExtensionPoint.of(type).isEmpty()) {
                throw new IllegalArgumentException("policy " + name + ": " + type + " implements no extension point");
            }
            this.name = name;
            this.type = type;
        }

        /** One sentence for operators: shown in usage texts and the metatype description. */
        public Builder<P> description(String text) {
            this.description = text;
            return this;
        }

        public Builder<P> option(OptionSpec<?> option) {
            if (options.putIfAbsent(option.name(), option) != null) {
                throw new IllegalArgumentException("policy " + name + ": option " + option.name() + " declared twice");
            }
            return this;
        }

        /** How an instance is made from its settings. */
        public Builder<P> factory(Function<Settings, P> make) {
            this.factory = make;
            return this;
        }

        /**
         * A report operators read: the console command {@code granary:<name>}, the HTTP resource of the
         * policy's report {@code <name>}.
         */
        public Builder<P> report(String reportName, String text, BiFunction<P, EngineView, Report> read) {
            return add(ReportSpec.of(reportName, text, type, List.of(), args -> read, false));
        }

        /** A report the simulator also samples over time (every table section becomes a time series). */
        public Builder<P> sampledReport(String reportName, String text, BiFunction<P, EngineView, Report> read) {
            return add(ReportSpec.of(reportName, text, type, List.of(), args -> read, true));
        }

        /**
         * A report with optional parameters ({@code billing [day]}): {@code prepare} checks the
         * arguments off the engine thread and returns the read (see {@link ReportSpec#prepare}).
         */
        public Builder<P> report(String reportName, String text, List<CommandSpec.Parameter> parameters,
                                 ReportSpec.Preparer<P> prepare) {
            return add(ReportSpec.of(reportName, text, type, parameters, prepare, false));
        }

        /** Applies a part of the declaration kept in its own class (e.g. a policy's reports and commands). */
        public Builder<P> with(java.util.function.Consumer<Builder<P>> part) {
            part.accept(this);
            return this;
        }

        /** The policy's class: a part kept elsewhere may need it. */
        public Class<P> type() {
            return type;
        }

        public Builder<P> command(CommandSpec command) {
            requireFree(command.name());
            commands.add(command);
            return this;
        }

        /** An HTTP resource; see {@link ResourceSpec}. */
        public Builder<P> resource(ResourceSpec resource) {
            resources.add(resource);
            ResourceSpec.requireDistinct(name, resources);
            return this;
        }

        /** A metric read from one of its reports; see {@link MetricSpec}. */
        public Builder<P> metric(MetricSpec metric) {
            if (metrics.stream().anyMatch(m -> m.name().equals(metric.name()))) {
                throw new IllegalArgumentException("policy " + name + ": metric " + metric.name() + " is declared twice");
            }
            metrics.add(metric);
            return this;
        }

        /** A reason code of its own (not one of {@link ReasonCode#engineCodes()}). */
        public Builder<P> reason(ReasonCode code) {
            if (ReasonCode.engineCodes().contains(code)) {
                throw new IllegalArgumentException("policy " + name + ": " + code + " is an engine reason code; declare only"
                        + " codes of the policy's own");
            }
            if (reasons.putIfAbsent(code.name(), code) != null) {
                throw new IllegalArgumentException("policy " + name + ": reason code " + code + " is declared twice");
            }
            return this;
        }

        private Builder<P> add(ReportSpec r) {
            requireFree(r.name());
            reports.add(r);
            return this;
        }

        private void requireFree(String n) {
            boolean taken = reports.stream().anyMatch(r -> r.name().equals(n)) || commands.stream().anyMatch(c -> c.name().equals(n));
            if (taken) {
                throw new IllegalArgumentException("policy " + name + ": a report or command '" + n + "' is declared twice");
            }
        }

        public PolicyDeclaration build() {
            if (factory == null) {
                throw new IllegalStateException("policy " + name + ": no factory declared");
            }
            for (MetricSpec m : metrics) {
                if (reports.stream().noneMatch(r -> r.name().equals(m.report()))) {
                    throw new IllegalStateException("policy " + name + ": metric " + m.name() + " reads report '" + m.report()
                            + "', which it does not declare");
                }
            }
            for (ResourceSpec r : resources) {
                for (String report : r.reports()) {
                    if (reports.stream().noneMatch(x -> x.name().equals(report))) {
                        throw new IllegalStateException("policy " + name + ": resource " + r + " serves report '" + report
                                + "', which it does not declare");
                    }
                }
            }
            return new PolicyDeclaration(this);
        }
    }

    /** The declarations' names, sorted (for messages). */
    public static List<String> names(List<PolicyDeclaration> declarations) {
        List<String> n = new ArrayList<>();
        declarations.forEach(d -> n.add(d.name()));
        Collections.sort(n);
        return n;
    }
}
