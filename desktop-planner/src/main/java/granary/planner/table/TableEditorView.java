package granary.planner.table;

import java.io.File;
import java.io.UncheckedIOException;
import java.nio.file.Path;

import javafx.beans.binding.Bindings;
import javafx.scene.control.Button;
import javafx.scene.control.Label;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.ScrollPane;
import javafx.scene.control.Separator;
import javafx.scene.control.TextField;
import javafx.scene.control.ToolBar;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.input.KeyEvent;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;

import granary.api.model.InvalidRequestException;
import granary.planner.table.model.CellRef;

/**
 * The quota table editor, for a tab of the planner: a toolbar, the {@link TimelineView}, the
 * {@link SpansChartView} under it and the list of problems (clicking one selects its cell).
 *
 * <p>Keys anywhere in the editor: Ctrl+Z undo, Ctrl+Y or Ctrl+Shift+Z redo, Ctrl+S save (asks
 * for a file the first time), Ctrl+Shift+S save as, Ctrl+O open, Ctrl+N add a group. In the
 * timeline: see {@link TimelineView} (arrows, Shift+arrows, Enter/F2, Delete, Insert). Every button
 * is reachable with Tab.
 *
 * <p>Failed commands do not raise dialogs: the view model's message shows in the status line.
 */
public final class TableEditorView extends BorderPane {

    private static final KeyCombination UNDO = new KeyCodeCombination(KeyCode.Z, KeyCombination.SHORTCUT_DOWN);
    private static final KeyCombination REDO = new KeyCodeCombination(KeyCode.Y, KeyCombination.SHORTCUT_DOWN);
    private static final KeyCombination REDO_SHIFT = new KeyCodeCombination(KeyCode.Z, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN);
    private static final KeyCombination SAVE = new KeyCodeCombination(KeyCode.S, KeyCombination.SHORTCUT_DOWN);
    private static final KeyCombination SAVE_AS = new KeyCodeCombination(KeyCode.S, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN);
    private static final KeyCombination OPEN = new KeyCodeCombination(KeyCode.O, KeyCombination.SHORTCUT_DOWN);
    private static final KeyCombination NEW_GROUP = new KeyCodeCombination(KeyCode.N, KeyCombination.SHORTCUT_DOWN);

    private final TableEditorViewModel vm;
    private final TimelineView timeline;
    private final ListView<TableProblem> problems = new ListView<>();
    private final TextField workerSpans = new TextField();

    public TableEditorView(TableEditorViewModel vm) {
        this.vm = vm;
        this.timeline = new TimelineView(vm);
        setId("tableEditor");

        setTop(toolbar());
        SpansChartView chart = new SpansChartView(vm);
        VBox center = new VBox(4, legend(), timeline, offerBar(), spansFixBar(), chart);
        ScrollPane scroll = new ScrollPane(center);
        scroll.setFitToWidth(true);
        scroll.setFocusTraversable(false);
        setCenter(scroll);

        problems.setId("problems");
        problems.setItems(vm.listed());
        problems.setPrefHeight(140);
        problems.setPlaceholder(new Label("No problems: the table can be pushed."));
        problems.setCellFactory(l -> new ListCell<>() {
            @Override
            protected void updateItem(TableProblem p, boolean empty) {
                super.updateItem(p, empty);
                setText(empty || p == null ? null : p.text());
                setStyle(empty || p == null ? "" : switch (p.kind()) {
                    case PROBLEM -> "-fx-text-fill: #a02020;";
                    case WARNING -> "-fx-text-fill: #7a4a00; -fx-font-weight: bold;";
                    case ACKNOWLEDGED -> "-fx-text-fill: #555555;";
                });
            }
        });
        problems.getSelectionModel().selectedItemProperty().addListener((o, a, p) -> vm.select(p));
        // clicking the problem already selected (after moving elsewhere) goes back to it too
        problems.setOnMouseClicked(e -> vm.select(problems.getSelectionModel().getSelectedItem()));
        problems.setOnKeyPressed(e -> {
            if (e.getCode() == KeyCode.ENTER) {
                vm.select(problems.getSelectionModel().getSelectedItem());
                timeline.requestFocus();
                e.consume();
            }
        });
        Label status = new Label();
        status.setId("status");
        status.setWrapText(true);
        status.textProperty().bind(Bindings.createStringBinding(this::status, vm.messageProperty(), vm.validProperty(),
                vm.dirtyProperty(), vm.sourceProperty(), vm.problems(), vm.pushBlockerProperty()));
        Button ack = new Button("Acknowledge warning");
        ack.setId("acknowledge");
        ack.setTooltip(new Tooltip("The selected warning is meant: it no longer stops a push"));
        ack.disableProperty().bind(Bindings.createBooleanBinding(() -> {
            TableProblem p = problems.getSelectionModel().getSelectedItem();
            return p == null || p.kind() != TableProblem.Kind.WARNING;
        }, problems.getSelectionModel().selectedItemProperty(), vm.listed()));
        ack.setOnAction(e -> vm.acknowledge(problems.getSelectionModel().getSelectedItem()));
        Button ackAll = new Button("Acknowledge all warnings");
        ackAll.setId("acknowledgeAll");
        ackAll.disableProperty().bind(Bindings.createBooleanBinding(
                () -> vm.warnings().stream().noneMatch(w -> w.kind() == TableProblem.Kind.WARNING), vm.warnings()));
        ackAll.setOnAction(e -> vm.acknowledgeAll());
        javafx.scene.layout.HBox ackBar = new javafx.scene.layout.HBox(6, ack, ackAll);
        setBottom(new VBox(2, problems, ackBar, status));

        addEventHandler(KeyEvent.KEY_PRESSED, this::shortcut);
    }

    /** What the timeline's colours and patterns mean. */
    private static javafx.scene.Node legend() {
        javafx.scene.layout.HBox box = new javafx.scene.layout.HBox(14,
                swatch(javafx.scene.paint.Color.web("#7fa7d9"), null, "its own slice (min/max)"),
                swatch(TimelineView.FROM_DEFAULT, null, "from default (no slice covers the hour)"),
                swatch(TimelineView.NOTHING, javafx.scene.paint.Color.web("#8a5a2b"), "nothing: the slice in force does not name the group"));
        box.setId("sourceLegend");
        box.setPadding(new javafx.geometry.Insets(2, 6, 0, 6));
        box.setAlignment(javafx.geometry.Pos.CENTER_LEFT);
        return box;
    }

    private static Label swatch(javafx.scene.paint.Color fill, javafx.scene.paint.Color stripe, String text) {
        javafx.scene.layout.StackPane sw = new javafx.scene.layout.StackPane(new javafx.scene.shape.Rectangle(18, 12, fill));
        if (stripe != null) {
            javafx.scene.shape.Line l = new javafx.scene.shape.Line(0, 12, 12, 0);
            l.setStroke(stripe);
            sw.getChildren().add(l);
        }
        Label label = new Label(text, sw);
        label.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        return label;
    }

    /** After drawing a slice that leaves groups with nothing: copy their default entries, or leave them so. */
    private javafx.scene.Node offerBar() {
        return choiceBar("offer", vm.offerProperty(), o -> o.text(),
                "Copy their default entries", "acceptOffer", vm::acceptOffer,
                "Leave them with nothing", "declineOffer", vm::declineOffer);
    }

    /** After a slice with its own WorkerSpans entry was moved: move the entry too, or keep it. */
    private javafx.scene.Node spansFixBar() {
        return choiceBar("spansFix", vm.spansFixProperty(), f -> f.text(),
                "Move the entry", "moveSpans", vm::moveSpans,
                "Keep it", "keepSpans", vm::keepSpans);
    }

    /**
     * A bar that asks a question with two answers while {@code question} holds one (its text shown),
     * hidden otherwise. Its nodes are {@code id}, {@code id + "Text"} and the two buttons' ids.
     */
    private <T> javafx.scene.Node choiceBar(String id, javafx.beans.value.ObservableValue<T> question,
                                            java.util.function.Function<T, String> textOf,
                                            String yes, String yesId, Runnable onYes, String no, String noId, Runnable onNo) {
        Label text = new Label();
        text.setId(id + "Text");
        text.setWrapText(true);
        Button yesButton = new Button(yes);
        yesButton.setId(yesId);
        yesButton.setOnAction(e -> onYes.run());
        Button noButton = new Button(no);
        noButton.setId(noId);
        noButton.setOnAction(e -> onNo.run());
        yesButton.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        noButton.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        javafx.scene.layout.HBox bar = new javafx.scene.layout.HBox(8, text, yesButton, noButton);
        javafx.scene.layout.HBox.setHgrow(text, javafx.scene.layout.Priority.ALWAYS);
        bar.setId(id);
        bar.setAlignment(javafx.geometry.Pos.CENTER_LEFT);
        bar.setPadding(new javafx.geometry.Insets(4, 6, 4, 6));
        bar.setStyle("-fx-background-color: #fff3d6; -fx-border-color: #c98a00;");
        Runnable update = () -> {
            T q = question.getValue();
            bar.setVisible(q != null);
            bar.setManaged(q != null);
            text.setText(q == null ? "" : textOf.apply(q));
        };
        question.addListener((ob, a, b) -> update.run());
        update.run();
        return bar;
    }

    public TimelineView timeline() {
        return timeline;
    }

    /** The tool bar: a flow that wraps onto a second row on a narrow window, never hiding a control behind "»". */
    private javafx.scene.layout.FlowPane toolbar() {
        Button open = button("open", "Open…", "Open a quota table file (Ctrl+O)", this::open);
        Button save = button("save", "Save", "Save the table (Ctrl+S)", this::save);
        Button saveAs = button("saveAs", "Save as…", "Save the table to another file (Ctrl+Shift+S)", this::saveAs);
        Button undo = button("undo", "Undo", "Undo (Ctrl+Z)", vm::undo);
        Button redo = button("redo", "Redo", "Redo (Ctrl+Y)", vm::redo);
        undo.disableProperty().bind(vm.canUndoProperty().not());
        redo.disableProperty().bind(vm.canRedoProperty().not());
        Button add = button("addGroup", "Add group", "Add a group row (Ctrl+N)", vm::addGroup);
        Button rename = button("renameGroup", "Rename group", "Rename the selected group in place (Shift+F2 in the timeline)", this::rename);
        Button remove = button("removeGroup", "Remove group", "Remove the selected group from every slice", () -> {
            String g = selectedGroup();
            if (g != null) {
                vm.removeGroup(g);
            }
        });
        for (Button b : new Button[] {add, rename, remove}) {
            b.disableProperty().bind(vm.editableProperty().not());
        }
        rename.disableProperty().unbind();
        rename.disableProperty().bind(vm.editableProperty().not().or(Bindings.createBooleanBinding(() -> selectedGroup() == null, vm.selectionProperty())));
        remove.disableProperty().unbind();
        remove.disableProperty().bind(rename.disableProperty());

        workerSpans.setId("workerSpans");
        workerSpans.setPromptText("default:5000,0-9:15000");
        workerSpans.setPrefColumnCount(22);
        workerSpans.setTooltip(new Tooltip("The cluster's worker count per slice; Enter applies"));
        workerSpans.setOnAction(e -> vm.setWorkerSpans(workerSpans.getText()));
        workerSpans.focusedProperty().addListener((o, was, is) -> {
            if (!is) {
                showWorkerSpans();
            }
        });
        vm.draftProperty().addListener((o, a, b) -> showWorkerSpans());
        showWorkerSpans();
        Label spansLabel = new Label("WorkerSpans");
        javafx.scene.layout.HBox spans = new javafx.scene.layout.HBox(6, spansLabel, workerSpans);
        spans.setAlignment(javafx.geometry.Pos.CENTER_LEFT);
        javafx.scene.layout.FlowPane bar = new javafx.scene.layout.FlowPane(6, 4, open, save, saveAs, sep(), undo, redo, sep(), add,
                rename, remove, sep(), spans);
        bar.setId("tableToolbar");
        bar.setAlignment(javafx.geometry.Pos.CENTER_LEFT);
        bar.setPadding(new javafx.geometry.Insets(4, 6, 4, 6));
        bar.getStyleClass().add("tool-bar");
        bar.getChildren().forEach(n -> {
            if (n instanceof Button b) {
                b.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
            }
        });
        spansLabel.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        workerSpans.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        return bar;
    }

    private static Separator sep() {
        Separator s = new Separator(javafx.geometry.Orientation.VERTICAL);
        s.setPrefHeight(22);
        return s;
    }

    private static Button button(String id, String text, String tip, Runnable action) {
        Button b = new Button(text);
        b.setId(id);
        b.setTooltip(new Tooltip(tip));
        b.setOnAction(e -> action.run());
        return b;
    }

    private void showWorkerSpans() {
        if (!workerSpans.isFocused()) {
            String t = vm.workerSpansText();
            workerSpans.setText(t == null ? "" : t);
        }
    }

    private String status() {
        String m = vm.messageProperty().get();
        if (m != null) {
            return m;
        }
        String where = vm.sourceProperty().get() + (vm.dirtyProperty().get() ? " (edited)" : "");
        int n = vm.problems().size();
        if (n > 0) {
            return where + ": " + n + (n == 1 ? " problem" : " problems") + ": cannot be pushed";
        }
        String blocker = vm.pushBlockerProperty().get();
        return where + ": valid" + (blocker == null ? "" : "; " + blocker);
    }

    private String selectedGroup() {
        CellRef sel = vm.selectionProperty().get();
        return sel == null ? null : sel.group();
    }

    private void shortcut(KeyEvent e) {
        Runnable action = UNDO.match(e) ? vm::undo
                : REDO.match(e) || REDO_SHIFT.match(e) ? vm::redo
                : SAVE.match(e) ? this::save
                : SAVE_AS.match(e) ? this::saveAs
                : OPEN.match(e) ? this::open
                : NEW_GROUP.match(e) ? vm::addGroup
                : null;
        if (action != null) {
            action.run();
            e.consume();
        }
    }

    // ---- files: the view model reports failures in its message, shown in the status line

    private void open() {
        File f = chooser("Open quota table").showOpenDialog(getScene().getWindow());
        if (f != null) {
            quietly(() -> vm.open(f.toPath()));
        }
    }

    private void save() {
        Path p = vm.fileProperty().get();
        if (p == null) {
            saveAs();
        } else {
            quietly(() -> vm.save(p));
        }
    }

    private void saveAs() {
        File f = chooser("Save quota table").showSaveDialog(getScene().getWindow());
        if (f != null) {
            quietly(() -> vm.save(f.toPath()));
        }
    }

    private FileChooser chooser(String title) {
        FileChooser c = new FileChooser();
        c.setTitle(title);
        c.getExtensionFilters().addAll(new FileChooser.ExtensionFilter("Quota tables (*.json)", "*.json"),
                new FileChooser.ExtensionFilter("All files", "*"));
        Path p = vm.fileProperty().get();
        if (p != null && p.toAbsolutePath().getParent() != null) {
            c.setInitialDirectory(p.toAbsolutePath().getParent().toFile());
            c.setInitialFileName(p.getFileName().toString());
        }
        return c;
    }

    private static void quietly(Runnable fileCommand) {
        try {
            fileCommand.run();
        } catch (UncheckedIOException | InvalidRequestException shownInTheStatusLine) {
            // the view model has put what went wrong, and where, in its message
        }
    }

    private void rename() {
        timeline.startRename(selectedGroup());
    }
}
