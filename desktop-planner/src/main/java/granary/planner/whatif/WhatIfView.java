package granary.planner.whatif;

import java.io.File;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.function.UnaryOperator;

import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.chart.BarChart;
import javafx.scene.chart.CategoryAxis;
import javafx.scene.chart.LineChart;
import javafx.scene.chart.NumberAxis;
import javafx.scene.chart.XYChart;
import javafx.scene.control.Button;
import javafx.scene.control.ChoiceBox;
import javafx.scene.control.ComboBox;
import javafx.scene.control.Label;
import javafx.scene.control.ProgressBar;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.TextField;
import javafx.scene.control.TextFormatter;
import javafx.scene.control.Tooltip;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.GridPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.TilePane;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.util.StringConverter;

import granary.sim.trace.TraceFormat;

/**
 * The what-if tab: the form, Run / Cancel with a progress bar and a status line, and the charts, each
 * with the draft and the table in force side by side as two series: timeouts (in all and per group),
 * job-wait percentiles, utilisation per hour of the day, billing per group, and per group its used
 * amount against its min and max per hour of the day. Ids for tests: {@code #trace}, {@code #format},
 * {@code #cluster}, {@code #maxJobs}, {@code #groups}, {@code #unitOrder}, {@code #run}, {@code #cancel},
 * {@code #progress}, {@code #status}, {@code #timeoutsChart}, {@code #waitsChart}, {@code #summary} (the numbers as text),
 * {@code #utilisationChart}, {@code #billingChart}, {@code #groupsChart} (a pane of one chart per
 * group, {@code #group-<name>}), {@code #notes}.
 */
public final class WhatIfView extends BorderPane {

    /**
     * The job limit as an object property for the field's formatter. Kept in a field: the binding
     * between it and the view model's long property is held weakly, and a temporary would be
     * collected, leaving the field deaf to changes made elsewhere (the command line's --max-jobs).
     */
    private final javafx.beans.property.ObjectProperty<Long> maxJobsAsObject;

    private final WhatIfViewModel vm;
    private final BarChart<String, Number> timeouts = barChart("timeoutsChart",
            "Timeouts (waits over 10 s)", "jobs");
    private final BarChart<String, Number> waits = barChart("waitsChart", "Job wait: p50, p90, p99 (seconds)", "seconds");
    private final BarChart<String, Number> billing = barChart("billingChart", "Billing", "");
    private final LineChart<Number, Number> utilisation = hourChart("utilisationChart",
            "Utilisation by hour of day: share of the cluster's cpu and memory granted (%)", "% of capacity");
    private final Label verdictSentence = new Label();
    private final GridPane verdict = new GridPane();
    private final TilePane groups = new TilePane(8, 8);
    private final Label notes = new Label();
    private final Label summary = new Label();

    public WhatIfView(WhatIfViewModel vm) {
        this.maxJobsAsObject = vm.maxJobsProperty().asObject();
        this.vm = vm;
        setPadding(new Insets(8));
        setTop(new VBox(8, form(), runBar(), baselineLine()));
        groups.setId("groupsChart");
        groups.setPrefColumns(3);
        groups.setMaxWidth(Double.MAX_VALUE);   // as many charts a row as the width takes
        notes.setId("notes");
        summary.setId("summary");
        summary.setStyle("-fx-font-family: monospace;");
        notes.setWrapText(true);
        utilisation.setPrefHeight(300);
        HBox bars = new HBox(8, timeouts, waits, billing);
        bars.getChildren().forEach(c -> HBox.setHgrow(c, Priority.ALWAYS));
        verdictSentence.setId("verdictSentence");
        verdictSentence.setWrapText(true);
        verdictSentence.setStyle("-fx-font-weight: bold; -fx-font-size: 13px;");
        verdict.setId("verdict");
        verdict.setHgap(16);
        verdict.setVgap(3);
        Label groupsTitle = new Label("Per group over the replay's real time: what it held, and its MinQuota and MaxQuota "
                + "from the slice in force at each moment");
        groupsTitle.setWrapText(true);
        VBox charts = new VBox(8, verdictSentence, verdict, bars, summary, utilisation, groupsTitle, groups, notes);
        charts.setPadding(new Insets(8, 0, 0, 0));
        ScrollPane scroll = new ScrollPane(charts);
        scroll.setFitToWidth(true);
        setCenter(scroll);
        vm.resultProperty().addListener((o, before, r) -> show(r));
        show(vm.resultProperty().get());
    }

    // ---- the form ----

    private GridPane form() {
        TextField trace = new TextField();
        trace.setId("trace");
        trace.setPrefColumnCount(40);
        trace.setPromptText("trace file, e.g. batch_task.csv.gz of the Alibaba 2017 trace");
        trace.setText(vm.traceProperty().get() == null ? "" : vm.traceProperty().get().toString());
        trace.textProperty().addListener((o, before, text) -> vm.traceProperty().set(path(text)));
        vm.traceProperty().addListener((o, before, p) -> {
            if (p == null ? !trace.getText().isBlank() : !p.equals(path(trace.getText()))) {
                trace.setText(p == null ? "" : p.toString());
            }
        });
        Button choose = new Button("Choose…");
        choose.setId("chooseTrace");
        choose.setOnAction(e -> chooseTrace());

        ChoiceBox<TraceFormat> format = new ChoiceBox<>(vm.formats());
        format.setId("format");
        format.setConverter(converter(TraceFormat::id, id -> TraceFormat.of(id)));
        format.valueProperty().bindBidirectional(vm.formatProperty());

        TextField cluster = new TextField();
        cluster.setId("cluster");
        cluster.setPromptText("the trace's own; e.g. nodes=400,cpu=6400,mem=262144");
        cluster.textProperty().bindBidirectional(vm.clusterProperty());

        TextField maxJobs = new TextField();
        maxJobs.setId("maxJobs");
        maxJobs.setPrefColumnCount(8);
        maxJobs.setPromptText("all");
        TextFormatter<Long> jobs = new TextFormatter<>(converter(n -> n == null || n == 0 ? "" : n.toString(),
                t -> t.isBlank() ? 0L : Long.parseLong(t)), 0L, digitsOnly());
        maxJobs.setTextFormatter(jobs);
        jobs.valueProperty().bindBidirectional(maxJobsAsObject);

        ComboBox<GroupAssignment> assignment = new ComboBox<>(vm.groupChoices());
        assignment.setId("groups");
        assignment.setEditable(true);
        assignment.setTooltip(new Tooltip("how jobs land in the tables' groups; or type the simulator's rule: "
                + "const:NAME, hash:N, or a column such as user"));
        assignment.setConverter(converter(g -> g == null ? "" : g.kind() == GroupAssignment.Kind.TRACE_RULE ? g.rule() : g.toString(),
                this::assignment));
        assignment.valueProperty().bindBidirectional(vm.groupsProperty());

        ChoiceBox<String> unitOrder = new ChoiceBox<>(vm.unitOrders());
        unitOrder.setId("unitOrder");
        unitOrder.valueProperty().bindBidirectional(vm.unitOrderProperty());

        GridPane g = new GridPane();
        g.setHgap(8);
        g.setVgap(6);
        g.addRow(0, new Label("Trace"), trace, choose, new Label("Format"), format);
        g.addRow(1, new Label("Cluster"), cluster, new Label("Jobs"), maxJobs);
        g.addRow(2, new Label("Groups"), assignment, new Label("with quota"), unitOrder);
        javafx.scene.control.DatePicker date = new javafx.scene.control.DatePicker();
        date.setId("startDate");
        date.valueProperty().bindBidirectional(vm.startDateProperty());
        javafx.scene.control.Spinner<Integer> hour = new javafx.scene.control.Spinner<>(0, 23, vm.startHourProperty().get());
        hour.setId("startHour");
        hour.setPrefWidth(80);
        hour.valueProperty().addListener((o, a, b) -> vm.startHourProperty().set(b == null ? 0 : b));
        vm.startHourProperty().addListener((o, a, b) -> hour.getValueFactory().setValue(b.intValue()));
        hour.setTooltip(new Tooltip("the hour of the day (UTC) the trace's first moment is replayed at: the slices count from it"));
        g.addRow(3, new Label("Starts"), new HBox(6, date, new Label("at"), hour, new Label(":00 UTC")));
        GridPane.setHgrow(trace, Priority.ALWAYS);
        return g;
    }

    private HBox runBar() {
        Button run = new Button("Run");
        run.setId("run");
        run.setDefaultButton(true);
        run.disableProperty().bind(vm.runningProperty());
        run.setOnAction(e -> vm.run());
        Button cancel = new Button("Cancel");
        cancel.setId("cancel");
        cancel.disableProperty().bind(vm.runningProperty().not());
        cancel.setOnAction(e -> vm.cancel());
        ProgressBar progress = new ProgressBar();
        progress.setId("progress");
        progress.setPrefWidth(220);
        progress.progressProperty().bind(vm.progressProperty());
        Label status = new Label();
        status.setId("status");
        status.textProperty().bind(vm.statusProperty());
        Tooltip tip = new Tooltip();
        tip.textProperty().bind(vm.statusProperty());
        status.setTooltip(tip);
        status.setMaxWidth(Double.MAX_VALUE);
        HBox.setHgrow(status, Priority.ALWAYS);
        // Run and Cancel keep their size whatever the status line says; the status line gives way
        run.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        cancel.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        progress.setMinWidth(120);
        status.setMinWidth(0);
        HBox bar = new HBox(8, run, cancel, progress, status);
        bar.setAlignment(Pos.CENTER_LEFT);
        return bar;
    }

    /** What the what-if compares with, and whether the result shown is out of date. */
    private Label baselineLine() {
        Label baseline = new Label();
        baseline.setId("baseline");
        baseline.setWrapText(true);
        baseline.textProperty().bind(vm.baselineProperty());
        baseline.styleProperty().bind(javafx.beans.binding.Bindings.createStringBinding(
                () -> vm.baselineProperty().get().startsWith("out of date") ? "-fx-text-fill: #8a3b00; -fx-font-weight: bold;" : "",
                vm.baselineProperty()));
        return baseline;
    }

    private void chooseTrace() {
        FileChooser chooser = new FileChooser();
        chooser.setTitle("Trace to replay");
        chooser.getExtensionFilters().addAll(
                new FileChooser.ExtensionFilter("Traces (csv, swf, json, gz)", "*.csv", "*.csv.gz", "*.swf", "*.swf.gz", "*.json", "*.gz"),
                new FileChooser.ExtensionFilter("All files", "*"));
        Path current = vm.traceProperty().get();
        if (current != null && current.toAbsolutePath().getParent() != null
                && current.toAbsolutePath().getParent().toFile().isDirectory()) {
            chooser.setInitialDirectory(current.toAbsolutePath().getParent().toFile());
        }
        File f = chooser.showOpenDialog(getScene() == null ? null : getScene().getWindow());
        if (f != null) {
            vm.traceProperty().set(f.toPath());
        }
    }

    /** A path as typed; text that is no path (on this system) is no trace, and the view model says so on run. */
    private static Path path(String text) {
        if (text == null || text.isBlank()) {
            return null;
        }
        try {
            return Path.of(text.trim());
        } catch (InvalidPathException e) {
            return null;
        }
    }

    private GroupAssignment assignment(String text) {
        if (text == null || text.isBlank()) {
            return GroupAssignment.hashIntoTableGroups();
        }
        for (GroupAssignment g : vm.groupChoices()) {
            if (g.toString().equals(text.trim())) {
                return g;
            }
        }
        return GroupAssignment.rule(text);
    }

    private static UnaryOperator<TextFormatter.Change> digitsOnly() {
        return c -> c.getControlNewText().matches("\\d{0,15}") ? c : null;
    }

    private static <T> StringConverter<T> converter(java.util.function.Function<T, String> to,
                                                    java.util.function.Function<String, T> from) {
        return new StringConverter<>() {
            @Override
            public String toString(T t) {
                return t == null ? "" : to.apply(t);
            }

            @Override
            public T fromString(String s) {
                return from.apply(s);
            }
        };
    }

    // ---- the charts ----

    private void show(WhatIfResult r) {
        timeouts.getData().clear();
        waits.getData().clear();
        billing.getData().clear();
        utilisation.getData().clear();
        groups.getChildren().clear();
        notes.setText("");
        summary.setText("");
        verdict.getChildren().clear();
        verdictSentence.setText("");
        if (r == null) {
            return;
        }
        showVerdict(Verdict.of(r));
        for (RunSummary s : List.of(r.draft(), r.inForce())) {
            XYChart.Series<String, Number> t = series(s.label());
            t.getData().add(new XYChart.Data<>("all", s.timeouts()));
            s.groups().values().forEach(g -> t.getData().add(new XYChart.Data<>(g.group(), g.timeouts())));
            timeouts.getData().add(t);

            XYChart.Series<String, Number> w = series(s.label());
            w.getData().add(new XYChart.Data<>("p50", s.jobWaits().p50() / 1000.0));
            w.getData().add(new XYChart.Data<>("p90", s.jobWaits().p90() / 1000.0));
            w.getData().add(new XYChart.Data<>("p99", s.jobWaits().p99() / 1000.0));
            waits.getData().add(w);

            XYChart.Series<String, Number> b = series(s.label());
            s.groups().values().forEach(g -> b.getData().add(new XYChart.Data<>(g.group(), g.billed(r.workerForm()) / 3600)));
            billing.getData().add(b);

            utilisation.getData().add(hours(s.label() + " cpu", s.cpuByHour(), 100));
            utilisation.getData().add(hours(s.label() + " mem", s.memByHour(), 100));
        }
        billing.setTitle("Billing (" + (r.workerForm() ? "slot" : "core") + "-hours)");
        long start = vm.startEpochMs();
        double spanH = Math.max(r.draft().run().simulatedMs(), r.inForce().run().simulatedMs()) / 3_600_000.0;
        timeouts.setTitle("Timeouts (waits over " + r.draft().run().timeouts().thresholdMs() / 1000 + " s)");
        Tooltip.install(timeouts, new Tooltip("a timeout is a job that waited more than "
                + r.draft().run().timeouts().thresholdMs() / 1000 + " s for resources (the wait-for-resource timeout)"));
        for (String g : r.groups()) {
            TimeChartView c = new TimeChartView("group-" + g, g + ": " + r.unit() + " held, MinQuota and MaxQuota", r.unit(), start, spanH);
            c.setPrefSize(520, 300);
            double held = 0;
            double limit = 0;
            for (RunSummary s : List.of(r.draft(), r.inForce())) {
                GroupSummary gs = s.groups().get(g);
                if (gs != null) {
                    c.getData().add(curve(s.label() + " held", gs.used()));
                    c.getData().add(curve(s.label() + " min", gs.min()));
                    c.getData().add(curve(s.label() + " max", gs.max()));
                    held = Math.max(held, Math.max(top(gs.used().values()), top(gs.min().values())));
                    limit = Math.max(limit, top(gs.max().values()));
                }
            }
            if (held > 0 && limit > 3 * held) {
                // a MaxQuota far above what the group ever held (often "no limit") would flatten its usage to the axis
                NumberAxis y = (NumberAxis) c.getYAxis();
                double upper = niceCeiling(held * 1.25);
                y.setAutoRanging(false);
                y.setLowerBound(0);
                y.setUpperBound(upper);
                y.setTickUnit(upper / 5);
                c.setTitle(c.getTitle() + "\nmax up to " + String.format(Locale.ROOT, "%,.0f", limit) + ": off the scale");
            }
            groups.getChildren().add(c);
        }
        summary.setText(line(r.draft()) + "\n" + line(r.inForce()));
        notes.setText(r.notes().isEmpty() ? "" : "Notes:\n" + String.join("\n", r.notes()));
    }

    /** The verdict: a sentence, then a row per measure (draft, in force, difference, which is better). */
    private void showVerdict(Verdict v) {
        verdictSentence.setText(v.sentence());
        String[] head = {"measure", "draft", "in force", "difference (draft − in force)", "better"};
        for (int c = 0; c < head.length; c++) {
            Label l = new Label(head[c]);
            l.setStyle("-fx-font-weight: bold;");
            verdict.add(l, c, 0);
        }
        int row = 1;
        for (Verdict.Measure m : v.measures()) {
            Label better = new Label(m.betterText());
            better.setId("better-" + row);
            better.setStyle(switch (m.better()) {
                case DRAFT -> "-fx-text-fill: #1a5e1a; -fx-font-weight: bold;";
                case IN_FORCE -> "-fx-text-fill: #8a3b00; -fx-font-weight: bold;";
                case SAME -> "";
            });
            Label name = new Label(m.name());
            name.setWrapText(true);
            name.setMaxWidth(360);
            verdict.addRow(row++, name, new Label(m.format(m.draft())), new Label(m.format(m.inForce())),
                    new Label(m.differenceText()), better);
        }
    }

    private static XYChart.Series<Number, Number> curve(String name, Curve c) {
        XYChart.Series<Number, Number> s = new XYChart.Series<>();
        s.setName(name);
        for (int i = 0; i < c.size(); i++) {
            double v = c.values().get(i);
            if (!Double.isNaN(v)) {
                s.getData().add(new XYChart.Data<>(c.hours().get(i), v));
            }
        }
        return s;
    }

    /** One side's headline numbers, for reading off exactly what the bars show. */
    private static String line(RunSummary s) {
        return String.format(Locale.ROOT, "%-9s timeouts %,d of %,d jobs (%.1f%%); job wait p50 %,d s, p90 %,d s, p99 %,d s; "
                        + "finished %,d, refused %,d", s.label(), s.timeouts(), s.jobs(), 100 * s.timeoutShare(),
                s.jobWaits().p50() / 1000, s.jobWaits().p90() / 1000, s.jobWaits().p99() / 1000, s.finished(), s.refused());
    }

    private static double top(List<Double> values) {
        return values.stream().filter(v -> !v.isNaN()).mapToDouble(Double::doubleValue).max().orElse(0);
    }

    /** The smallest 1, 2 or 5 times a power of ten at or above {@code v} (v > 0). */
    static double niceCeiling(double v) {
        double power = Math.pow(10, Math.floor(Math.log10(v)));
        for (double step : new double[] {1, 2, 5, 10}) {
            if (step * power >= v) {
                return step * power;
            }
        }
        return 10 * power;
    }

    private static XYChart.Series<String, Number> series(String name) {
        XYChart.Series<String, Number> s = new XYChart.Series<>();
        s.setName(name);
        return s;
    }

    /** Hours 0-23; an hour the replay spent no time in has no point. */
    private static XYChart.Series<Number, Number> hours(String name, List<Double> byHour, double scale) {
        XYChart.Series<Number, Number> s = new XYChart.Series<>();
        s.setName(name);
        for (int h = 0; h < byHour.size(); h++) {
            double v = byHour.get(h);
            if (!Double.isNaN(v)) {
                s.getData().add(new XYChart.Data<>(h, v * scale));
            }
        }
        return s;
    }

    private static BarChart<String, Number> barChart(String id, String title, String unit) {
        NumberAxis y = new NumberAxis();
        y.setLabel(unit);
        BarChart<String, Number> c = new BarChart<>(new CategoryAxis(), y);
        c.setId(id);
        c.setTitle(title);
        c.setAnimated(false);   // charts are redrawn whole for each result; animation would only lag
        c.setPrefHeight(280);
        return c;
    }

    private static LineChart<Number, Number> hourChart(String id, String title, String unit) {
        NumberAxis x = new NumberAxis(0, 23, 3);
        x.setLabel("hour of day (UTC): the mean over every day the replay ran through that hour");
        NumberAxis y = new NumberAxis();
        y.setLabel(unit);
        LineChart<Number, Number> c = new LineChart<>(x, y);
        c.setId(id);
        c.setTitle(title);
        c.setAnimated(false);
        c.setCreateSymbols(false);
        return c;
    }
}
