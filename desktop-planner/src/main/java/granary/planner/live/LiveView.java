package granary.planner.live;

import javafx.beans.binding.Bindings;
import javafx.collections.ListChangeListener;
import javafx.geometry.Insets;
import javafx.geometry.Orientation;
import javafx.geometry.Pos;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.PasswordField;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.control.TextArea;
import javafx.scene.control.TextField;
import javafx.scene.control.TitledPane;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;
import javafx.scene.paint.Color;
import javafx.scene.shape.Rectangle;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.scene.paint.LinearGradient;
import javafx.scene.paint.CycleMethod;
import javafx.scene.paint.Stop;

/**
 * The live view (docs/planner.md): the connection bar, the nodes' heatmap with its colour scale and
 * the frame time in a corner, each group's use against min and max over the last hour, waiting work
 * per queue, and the jobs with why their units wait. It binds to a {@link LiveViewModel} and calls
 * it; it never talks to a master.
 *
 * <p>Ids: {@code #heatmap} (the canvas), {@code #groups}, {@code #queues}, {@code #jobs}, {@code #why},
 * {@code #slice}, {@code #connection}, and {@code #url}, {@code #token}, {@code #connect},
 * {@code #disconnect}, {@code #jobId}, {@code #frameTimes}, {@code #stats}, {@code #nodeDetail}.
 */
public final class LiveView extends BorderPane {

    private final LiveViewModel vm;
    private final HeatmapView heatmap;
    private final ListView<JobRow> jobList = new ListView<>();

    public LiveView(LiveViewModel vm) {
        this.vm = vm;
        this.heatmap = new HeatmapView(vm::frameDrawn, vm::selectNode);
        vm.frameProperty().addListener((o, was, f) -> {
            if (f != null) {
                heatmap.show(f);
            }
        });
        setTop(connectionBar());
        SplitPane split = new SplitPane(heatmapPane(), sidePanel());
        split.setDividerPositions(0.62);
        setCenter(split);
        setBottom(statusBar());
    }

    private VBox connectionBar() {
        TextField url = new TextField();
        url.setId("url");
        url.setPromptText("http://HOST:PORT");
        url.textProperty().bindBidirectional(vm.masterUrlProperty());
        url.setPrefColumnCount(22);
        PasswordField token = new PasswordField();
        token.setId("token");
        token.setPromptText("token (reader)");
        token.textProperty().bindBidirectional(vm.tokenProperty());
        Button connect = new Button("Connect");
        connect.setId("connect");
        connect.setDefaultButton(true);
        connect.setOnAction(e -> vm.connect());
        Button disconnect = new Button("Disconnect");
        disconnect.setId("disconnect");
        disconnect.setOnAction(e -> vm.disconnect());
        disconnect.disableProperty().bind(vm.stateProperty().isEqualTo(ConnectionState.DISCONNECTED)
                .or(vm.stateProperty().isEqualTo(ConnectionState.FAILED)));
        Label state = new Label();
        state.textProperty().bind(Bindings.createStringBinding(() -> vm.stateProperty().get().name().toLowerCase(), vm.stateProperty()));
        state.styleProperty().bind(Bindings.createStringBinding(() -> "-fx-font-weight: bold; -fx-text-fill: " + switch (vm.stateProperty().get()) {
            case CONNECTED -> "#2e7d32";
            case CONNECTING, RECONNECTING -> "#b26a00";
            case FAILED -> "#c62828";
            case DISCONNECTED -> "#555555";
        } + ";", vm.stateProperty()));
        HBox row = new HBox(6, new Label("Master"), url, new Label("Token"), token, connect, disconnect, state);
        row.setAlignment(Pos.CENTER_LEFT);
        Label connection = new Label();
        connection.setId("connection");
        connection.textProperty().bind(vm.connectionTextProperty());
        connection.setWrapText(true);
        Label slice = new Label();
        slice.setId("slice");
        slice.textProperty().bind(vm.sliceProperty());
        VBox bar = new VBox(4, row, connection, slice);
        bar.setPadding(new Insets(6));
        return bar;
    }

    private BorderPane heatmapPane() {
        Label frameTimes = new Label();
        frameTimes.setId("frameTimes");
        frameTimes.textProperty().bind(vm.frameTimesTextProperty());
        frameTimes.setStyle("-fx-background-color: rgba(0,0,0,0.6); -fx-text-fill: white; -fx-padding: 2 5;");
        heatmap.setMinSize(0, 0);
        // the past is not shown as the present: while the stream does not feed the map, it is grey and says since when
        javafx.scene.effect.ColorAdjust grey = new javafx.scene.effect.ColorAdjust(0, -1, 0.25, -0.2);
        heatmap.effectProperty().bind(Bindings.when(vm.staleProperty()).then((javafx.scene.effect.Effect) grey)
                .otherwise((javafx.scene.effect.Effect) null));
        Label staleBanner = new Label();
        staleBanner.setId("staleBanner");
        staleBanner.textProperty().bind(vm.staleTextProperty());
        staleBanner.visibleProperty().bind(vm.staleProperty());
        staleBanner.setStyle("-fx-background-color: rgba(40,40,40,0.85); -fx-text-fill: white; -fx-padding: 6 10; -fx-font-size: 14px;");
        staleBanner.setMouseTransparent(true);
        javafx.scene.layout.StackPane stack = new javafx.scene.layout.StackPane(heatmap, staleBanner);
        javafx.scene.layout.StackPane.setAlignment(staleBanner, Pos.TOP_CENTER);
        stack.setMinSize(0, 0);
        BorderPane pane = new BorderPane(stack);
        // the side panel keeps its share of the split: the map's bar gives way instead
        pane.setMinWidth(0);
        frameTimes.setMinWidth(0);
        // the frame time in the top right corner, beside the colour scale, where it hides no room
        BorderPane top = new BorderPane();
        top.setLeft(legend());
        top.setRight(frameTimes);
        BorderPane.setAlignment(frameTimes, Pos.CENTER_RIGHT);
        pane.setTop(top);
        return pane;
    }

    /** The colour scale with its numbers: 0 % to 100 % granted, and blacklisted. */
    private HBox legend() {
        Stop[] stops = new Stop[11];
        for (int k = 0; k <= 10; k++) {
            stops[k] = new Stop(k / 10.0, HeatmapView.colour(k / 10.0));
        }
        double w = 200;
        Rectangle scale = new Rectangle(w, 10, new LinearGradient(0, 0, 1, 0, true, CycleMethod.NO_CYCLE, stops));
        javafx.scene.layout.Pane ticks = new javafx.scene.layout.Pane();
        ticks.setPrefSize(w + 30, 14);
        for (int p = 0; p <= 100; p += 25) {
            Label t = new Label(p + "%");
            t.setStyle("-fx-font-size: 10px;");
            t.setLayoutX(p / 100.0 * w - (p == 0 ? 0 : p == 100 ? 22 : 10));
            ticks.getChildren().add(t);
        }
        VBox scaleWithTicks = new VBox(1, scale, ticks);
        Rectangle black = new Rectangle(10, 10, Color.web("#6b6b6b"));
        HBox legend = new HBox(5, new Label("granted"), scaleWithTicks, black, new Label("blacklisted"));
        legend.getChildren().forEach(n -> {
            if (n instanceof Label l) {
                l.setMinWidth(Region.USE_PREF_SIZE);
            }
        });
        Tooltip.install(legend, new Tooltip("a node's colour: the larger of its cpu and memory granted, as a share of its capacity; "
                + "hover a node for its usage, click it for the jobs holding slots on it"));
        legend.setAlignment(Pos.CENTER_LEFT);
        legend.setPadding(new Insets(2, 6, 2, 6));
        legend.setId("legend");
        return legend;
    }

    private SplitPane sidePanel() {
        GroupChartView chart = new GroupChartView(vm.groups());
        ScrollPane chartScroll = new ScrollPane(chart);
        chartScroll.setFitToWidth(true);
        chartScroll.setMinViewportHeight(3 * GroupChartView.STRIP); // three groups at least, whatever the split
        chartScroll.setPrefViewportHeight(5 * GroupChartView.STRIP);
        TitledPane groups = new TitledPane("Groups: used against min and max, last hour", chartScroll);
        groups.setCollapsible(false);

        TableView<QueueRow> queues = new TableView<>(vm.queues());
        queues.setId("queues");
        queues.getColumns().add(column("queue", 160, r -> r.path()));
        queues.getColumns().add(column("waiting units", 90, r -> r.waitingUnits()));
        queues.getColumns().add(column("waiting slots", 90, r -> r.waitingSlots()));
        queues.getColumns().add(column("used slots", 80, r -> r.usedSlots()));
        queues.setPlaceholder(new Label("no queues yet"));
        TitledPane queuePane = new TitledPane("Waiting work per queue", queues);
        queuePane.setCollapsible(false);

        ListView<LiveViewModel.RoomRow> rooms = new ListView<>(vm.roomRows());
        rooms.setId("rooms");
        rooms.setPlaceholder(new Label("no rooms yet"));
        rooms.setCellFactory(l -> new ListCell<>() {
            @Override
            protected void updateItem(LiveViewModel.RoomRow r, boolean empty) {
                super.updateItem(r, empty);
                setText(empty || r == null ? null : r.text());
                setWrapText(true);
                setPrefWidth(0);   // wrap to the list's width instead of scrolling sideways
            }
        });
        TitledPane roomPane = new TitledPane("Rooms", rooms);
        roomPane.setCollapsible(false);
        chart.effectProperty().bind(Bindings.when(vm.staleProperty()).then((javafx.scene.effect.Effect)
                new javafx.scene.effect.ColorAdjust(0, -1, 0.25, -0.2)).otherwise((javafx.scene.effect.Effect) null));

        SplitPane side = new SplitPane(groups, roomPane, queuePane, jobsPanel());
        side.setOrientation(Orientation.VERTICAL);
        side.setDividerPositions(0.36, 0.5, 0.68);
        return side;
    }

    private static <T> TableColumn<QueueRow, T> column(String name, double width, java.util.function.Function<QueueRow, T> value) {
        TableColumn<QueueRow, T> c = new TableColumn<>(name);
        c.setPrefWidth(width);
        c.setCellValueFactory(d -> new ReadOnlyObjectWrapper<>(value.apply(d.getValue())));
        return c;
    }

    private TitledPane jobsPanel() {
        jobList.setId("jobs");
        jobList.setItems(vm.jobs());
        jobList.setPlaceholder(new Label("no grants seen yet"));
        jobList.setCellFactory(l -> new ListCell<>() {
            @Override
            protected void updateItem(JobRow j, boolean empty) {
                super.updateItem(j, empty);
                setText(empty || j == null ? null : j.job() + "   " + j.slots() + " slots on " + j.grants() + " unit-node pair(s)");
            }
        });
        // a person's choice, by mouse or keys, asks why; a refresh of the list (once a second) does not
        jobList.setOnMouseClicked(e -> askWhyOfSelected());
        jobList.setOnKeyReleased(e -> {
            if (e.getCode().isNavigationKey() || e.getCode() == KeyCode.ENTER) {
                askWhyOfSelected();
            }
        });
        // the list is refreshed as grants come: keep the selected job selected
        vm.jobs().addListener((ListChangeListener<JobRow>) c -> {
            String sel = vm.selectedJobProperty().get();
            for (int k = 0; sel != null && k < vm.jobs().size(); k++) {
                if (vm.jobs().get(k).job().equals(sel)) {
                    jobList.getSelectionModel().select(k);
                    return;
                }
            }
        });
        TextField jobId = new TextField();
        jobId.setId("jobId");
        jobId.setPromptText("any job id (a waiting job holds no grant)");
        jobId.setOnAction(e -> vm.selectJob(jobId.getText()));
        Button ask = new Button("Why?");
        ask.setOnAction(e -> vm.selectJob(jobId.getText()));
        HBox byId = new HBox(4, jobId, ask);
        HBox.setHgrow(jobId, Priority.ALWAYS);
        TextArea why = new TextArea();
        why.setId("why");
        why.setEditable(false);
        why.setWrapText(true);
        why.textProperty().bind(vm.whyProperty());
        why.setPrefRowCount(6);
        ListView<String> waitingList = new ListView<>(vm.waitingJobs());
        waitingList.setId("waitingJobs");
        waitingList.setPlaceholder(new Label("no job waits"));
        waitingList.setPrefHeight(90);
        Runnable askWaiting = () -> {
            String line = waitingList.getSelectionModel().getSelectedItem();
            if (line != null) {
                String id = line.split(" ", 2)[0];
                if (!id.equals(vm.selectedJobProperty().get())) {
                    vm.selectJob(id);
                }
            }
        };
        waitingList.setOnMouseClicked(e -> askWaiting.run());
        waitingList.setOnKeyReleased(e -> {
            if (e.getCode().isNavigationKey() || e.getCode() == KeyCode.ENTER) {
                askWaiting.run();
            }
        });
        Label waitingLine = new Label();
        waitingLine.setId("waitingText");
        waitingLine.textProperty().bind(vm.waitingTextProperty());
        VBox box = new VBox(4, new Label("Holding slots"), jobList, waitingLine, waitingList, byId, why);
        VBox.setVgrow(jobList, Priority.ALWAYS);
        TitledPane pane = new TitledPane("Jobs (click one: why do its units wait?)", box);
        pane.setCollapsible(false);
        return pane;
    }

    private void askWhyOfSelected() {
        JobRow j = jobList.getSelectionModel().getSelectedItem();
        if (j != null && !j.job().equals(vm.selectedJobProperty().get())) {
            vm.selectJob(j.job());
        }
    }

    private VBox statusBar() {
        Label stats = new Label();
        stats.setId("stats");
        stats.textProperty().bind(vm.statsProperty());
        Label node = new Label();
        node.setId("nodeDetail");
        node.textProperty().bind(vm.nodeDetailProperty());
        VBox bar = new VBox(2, stats, node);
        bar.setPadding(new Insets(4, 6, 4, 6));
        return bar;
    }
}
