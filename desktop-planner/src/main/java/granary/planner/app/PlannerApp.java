package granary.planner.app;

import java.io.StringReader;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import javafx.application.Application;
import javafx.application.Platform;
import javafx.geometry.Insets;
import javafx.scene.Scene;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.Tab;
import javafx.scene.control.TabPane;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.VBox;
import javafx.stage.Stage;

import granary.planner.connect.ConnectionView;
import granary.planner.connect.ConnectionViewModel;
import granary.planner.live.LiveView;
import granary.planner.live.LiveViewModel;
import granary.planner.master.MasterClient;
import granary.planner.push.PushView;
import granary.planner.push.PushViewModel;
import granary.planner.table.TableEditorView;
import granary.planner.table.TableEditorViewModel;
import granary.planner.whatif.WhatIfService;
import granary.planner.whatif.WhatIfView;
import granary.planner.whatif.WhatIfViewModel;
import granary.policy.quota.api.QuotaTable;
import granary.policy.quota.api.QuotaTableCodec;

/**
 * The planner's window (docs/planner.md): the connection bar, then one tab per feature — the quota
 * table editor, the what-if, the push, the live view — and a status line. This class only wires: it
 * makes each feature's view model with the UI executor ({@link Platform#runLater}) and a background
 * pool, and connects them — the editor's valid draft feeds the what-if and the push, the table
 * imported from the master is the what-if's "in force", the connected master goes to the push and
 * the live view. It prints a line per milestone on standard output ({@code planner: shown}, ...) so
 * that scripts (bin/screenshots.sh) know when to look.
 */
public final class PlannerApp extends Application {

    private final ExecutorService background = Executors.newCachedThreadPool(new java.util.concurrent.ThreadFactory() {
        private final AtomicInteger n = new AtomicInteger();

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "planner-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        }
    });

    // the features' view models: package-private for PlannerIT, which drives the whole window
    ConnectionViewModel connection;
    TableEditorViewModel editor;
    WhatIfViewModel whatIf;
    PushViewModel push;
    LiveViewModel live;
    /** Reads the master's status every 5 s for the connection bar; stopped with the application. */
    private javafx.animation.Timeline statusPoll;

    @Override
    public void start(Stage stage) throws Exception {
        PlannerOptions options = PlannerOptions.parse(getParameters().getRaw());
        Label status = new Label();
        status.setId("status");

        connection = new ConnectionViewModel(Platform::runLater, background);
        editor = new TableEditorViewModel();
        whatIf = new WhatIfViewModel(Platform::runLater, new WhatIfService());
        push = new PushViewModel(Platform::runLater, background);
        live = new LiveViewModel(Platform::runLater);

        whatIf.draftProperty().bind(editor.validTableProperty());
        // the live tab's own bar shows and reconnects to the same master as the shell's
        live.masterUrlProperty().bindBidirectional(connection.urlProperty());
        live.tokenProperty().bindBidirectional(connection.tokenProperty());
        push.masterProperty().bind(connection.clientProperty());
        push.draftSource(() -> editor.validTableProperty().get() == null ? null
                : new PushViewModel.Draft(editor.text(), editor.workerSpansText()));
        push.blockerSource(() -> editor.pushBlockerProperty().get());
        connection.clientProperty().addListener((o, was, now) -> {
            if (now == null) {
                live.disconnect();
                whatIf.inForceProperty().set(null);
                whatIf.inForceRevisionProperty().set(null);
            } else {
                live.connect(now);
                refreshInForce(status);
            }
        });

        Button importTable = new Button("Import the table in force");
        importTable.setId("importTable");
        importTable.disableProperty().bind(connection.clientProperty().isNull().or(connection.busyProperty()));
        Runnable doImport = () -> connection.importTable(t -> {
            try {
                editor.load(t.tableJson(), t.workerSpans(), "the master at " + connection.urlProperty().get());
            } catch (RuntimeException e) {
                status.setText("import failed: the master's table does not read: " + e.getMessage());
                return;
            }
            // the revision first: a what-if that starts as the table arrives compares with this revision
            whatIf.inForceRevisionProperty().set(t.revision());
            whatIf.inForceProperty().set(inForce(t));
            status.setText("imported the table in force (revision " + t.revision() + ") from " + connection.urlProperty().get());
            say("planner: imported");
        }, why -> status.setText("import failed: " + why));
        importTable.setOnAction(e -> doImport.run());

        TabPane tabs = new TabPane(
                tab("table", "Quota table", new TableEditorView(editor)),
                tab("whatif", "What-if", new WhatIfView(whatIf)),
                tab("push", "Push", new PushView(push)),
                tab("live", "Live", new LiveView(live)));
        tabs.setTabClosingPolicy(TabPane.TabClosingPolicy.UNAVAILABLE);
        tabs.getSelectionModel().select(PlannerOptions.TABS.indexOf(options.tab()));

        importTable.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        ConnectionView bar = new ConnectionView(connection);
        HBox.setHgrow(bar, javafx.scene.layout.Priority.ALWAYS);
        HBox top = new HBox(8, bar, importTable);
        top.setPadding(new Insets(0, 8, 0, 0));
        top.setAlignment(javafx.geometry.Pos.CENTER_LEFT);
        BorderPane root = new BorderPane(tabs, top, null, status, null);
        BorderPane.setMargin(status, new Insets(4, 8, 4, 8));
        stage.setTitle("Granary planner");
        javafx.geometry.Rectangle2D screen = javafx.stage.Screen.getPrimary().getVisualBounds();
        stage.setScene(new Scene(new VBox(root), Math.min(1600, screen.getWidth()), Math.min(1000, screen.getHeight())));
        root.prefHeightProperty().bind(stage.getScene().heightProperty());
        stage.show();
        // the connection bar's figures are live: the master's status is read again every 5 s
        statusPoll = new javafx.animation.Timeline(
                new javafx.animation.KeyFrame(javafx.util.Duration.seconds(5), e -> connection.refreshStatus()));
        statusPoll.setCycleCount(javafx.animation.Animation.INDEFINITE);
        statusPoll.play();

        // at start, what the command line asked for
        if (options.table() != null) {
            try {
                editor.open(options.table());
                if (options.workerSpans() != null) {
                    editor.setWorkerSpans(options.workerSpans());
                }
            } catch (RuntimeException e) {
                status.setText("cannot open " + options.table() + ": " + e.getMessage());
            }
        }
        if (options.trace() != null) {
            whatIf.traceProperty().set(options.trace());
        }
        whatIf.maxJobsProperty().set(options.maxJobs());
        whatIf.runningProperty().addListener((o, was, now) -> {
            if (was && !now) {
                say("planner: what-if " + (whatIf.resultProperty().get() != null ? "finished" : "failed") + ": " + whatIf.statusProperty().get());
            }
        });
        push.stepProperty().addListener((o, was, now) -> {
            if (now == PushViewModel.Step.APPLIED) {
                // the table just applied is the what-if's baseline from now on
                refreshInForce(status);
            }
            if (now == PushViewModel.Step.REVIEW) {
                say("planner: push reviewed: " + push.diff().size() + " change(s)");
            } else if (now == PushViewModel.Step.REFUSED) {
                say("planner: push refused: " + push.messageProperty().get());
            }
        });
        live.frameProperty().addListener((o, was, now) -> {
            if (was == null && now != null) {
                say("planner: live streaming");
            }
        });
        if (options.master() != null) {
            connection.urlProperty().set(options.master());
            connection.tokenProperty().set(options.token() == null ? "" : options.token());
            List<String> act = options.act();
            connection.clientProperty().addListener((o, was, now) -> {
                if (now != null && was == null) {
                    if (act.contains("import")) {
                        doImport.run();
                    }
                    if (act.contains("acknowledge")) {
                        editor.acknowledgeAll();
                    }
                    if (act.contains("preview")) {
                        push.preview();
                    }
                }
            });
            connection.stateProperty().addListener((o, was, now) -> {
                if (!now.startsWith("connect")) {
                    say("planner: live failed: " + now);
                }
            });
            connection.connect();
        }
        if (options.act().contains("whatif")) {
            // the replay needs the table in force: it starts once the import brought it
            whatIf.inForceProperty().addListener((o, was, now) -> {
                if (now != null && !whatIf.runningProperty().get()) {
                    whatIf.run();
                    if (!whatIf.runningProperty().get()) {
                        say("planner: what-if failed: " + whatIf.statusProperty().get());
                    }
                }
            });
        }
        say("planner: shown");
        // "drawn" only once a frame with the window's content has been through layout and rendering:
        // two pulses after showing (the first lays out, the second paints what was laid out)
        int[] pulses = {0};
        Runnable[] listener = new Runnable[1];
        listener[0] = () -> {
            if (++pulses[0] == 1) {
                stage.getScene().getRoot().requestLayout();   // one more pulse, even if nothing else changes
            } else if (pulses[0] == 2) {
                stage.getScene().removePostLayoutPulseListener(listener[0]);
                Platform.runLater(() -> say("planner: drawn"));
            }
        };
        stage.getScene().addPostLayoutPulseListener(listener[0]);
        stage.getScene().getRoot().requestLayout();
    }

    /**
     * The what-if compares the draft with the table really in force: read at each connection (the
     * editor keeps its draft; Import puts the table in force into the editor too).
     */
    private void refreshInForce(Label status) {
        connection.importTable(t -> {
            QuotaTable table = inForce(t);
            whatIf.inForceRevisionProperty().set(table == null ? null : t.revision());
            whatIf.inForceProperty().set(table);
            status.setText(table == null ? "the master's table in force does not read: the what-if has nothing to compare with"
                    : "the what-if compares with the table in force on " + connection.urlProperty().get() + " (revision " + t.revision() + ")");
        }, why -> status.setText("the what-if still compares with revision " + whatIf.inForceRevisionProperty().get()
                + ": the table in force could not be read again (" + why + ")"));
    }

    private static Tab tab(String id, String title, javafx.scene.Node content) {
        Tab t = new Tab(title, content);
        t.setId(id + "Tab");
        return t;
    }

    /** The table in force as a model, or null if the master's text does not read (the editor shows why). */
    private static QuotaTable inForce(MasterClient.InForce t) {
        try {
            return QuotaTableCodec.read(new StringReader(t.tableJson()), "the table in force", QuotaTableCodec.workerSpans(t.workerSpans()));
        } catch (RuntimeException e) {
            return null;
        }
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    @Override
    public void stop() {
        if (statusPoll != null) {
            statusPoll.stop();
        }
        if (live != null) {
            live.close();
        }
        background.shutdownNow();
    }
}
